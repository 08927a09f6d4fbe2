; entry_32.asm - ELF entry point (_start) of testkern32.
;
; In:  32-bit protected mode, paging off, flat 4 GiB segments:
;      CS = BOOT_CS (0x10), DS = ES = SS = BOOT_DS (0x18);
;      esi = physical address of struct boot_params (the zero page);
;      ebx = edi = ebp = 0; IF = 0.  esp is not relied on.
; Out: never returns.  The entry registers are saved on our own stack as a
;      struct entry_state (images/testkern.c: one dword per field, lowest
;      address first: esi, ebx, edi, ebp, cs, ds, es, ss, eflags) and
;      testkern_main(&entry_state) is called; it exits QEMU through
;      isa-debug-exit, and halts if that fails.

%include "bzpack_format.inc"            ; BOOT_CS, BOOT_DS from stub/bzpack_format.h
%if BOOT_CS != 0x10 || BOOT_DS != 0x18  ; the contract above spells them out
%error "BOOT_CS/BOOT_DS changed: update the In: contract"  ; stop the build
%endif                                  ; end of the contract check

bits 32                                 ; this code runs in 32-bit protected mode
global _start                           ; the ELF entry point
extern testkern_main                    ; images/testkern.c

section .text.entry progbits alloc exec nowrite align=16  ; linked first in .text
_start:
	mov esp, stack_top              ; our own stack (mov leaves eflags alone)
	pushfd                          ; entry_state.flags, before anything changes them
	mov eax, ss                     ; SS selector, zero-extended
	push eax                        ; entry_state.ss
	mov eax, es                     ; ES selector
	push eax                        ; entry_state.es
	mov eax, ds                     ; DS selector
	push eax                        ; entry_state.ds
	mov eax, cs                     ; CS selector
	push eax                        ; entry_state.cs
	push ebp                        ; entry_state.bp_reg
	push edi                        ; entry_state.di
	push ebx                        ; entry_state.bx
	push esi                        ; entry_state.bp: boot_params
	mov eax, esp                    ; eax = &entry_state
	cld                             ; the C ABI wants DF = 0
	and esp, -16                    ; align the stack to 16 bytes
	sub esp, 12                     ; so that it is 16-aligned again after the push below
	push eax                        ; argument: &entry_state
	call testkern_main              ; does not return
.halt:
	cli                             ; in case it ever does: interrupts off
	hlt                             ; and stop
	jmp .halt                       ; forever (NMIs wake hlt)

section .kstack nobits alloc write noexec align=16  ; not in .bss: .bss is checked for zero
	resb 32768                      ; 32 KiB stack (crc32c tables alone are 8 KiB)
stack_top:                              ; the stack grows down from here

section .note.GNU-stack noalloc noexec nowrite progbits  ; no executable stack wanted
