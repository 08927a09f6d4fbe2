; entry_64.asm - ELF entry point (_start) of testkern64.
;
; In:  64-bit long mode, paging on with (at least) the kernel, the zero
;      page and the command line identity-mapped;
;      CS = BOOT_CS (0x10), DS = ES = SS = BOOT_DS (0x18);
;      rsi = physical address of struct boot_params (the zero page); IF = 0.
;      rsp is not relied on.
; Out: never returns.  The entry registers are saved on our own stack as a
;      struct entry_state (images/testkern.c: one qword per field, lowest
;      address first: rsi, rbx, rdi, rbp, cs, ds, es, ss, rflags) and
;      testkern_main(&entry_state) is called; it exits QEMU through
;      isa-debug-exit, and halts if that fails.

%include "bzpack_format.inc"            ; BOOT_CS, BOOT_DS from stub/bzpack_format.h
%if BOOT_CS != 0x10 || BOOT_DS != 0x18  ; the contract above spells them out
%error "BOOT_CS/BOOT_DS changed: update the In: contract"  ; stop the build
%endif                                  ; end of the contract check

bits 64                                 ; this code runs in 64-bit long mode
default rel                             ; memory operands are rip-relative
global _start                           ; the ELF entry point
extern testkern_main                    ; images/testkern.c

section .text.entry progbits alloc exec nowrite align=16  ; linked first in .text
_start:
	lea rsp, [stack_top]            ; our own stack (lea leaves rflags alone)
	pushfq                          ; entry_state.flags, before anything changes them
	mov eax, ss                     ; SS selector, zero-extended into rax
	push rax                        ; entry_state.ss
	mov eax, es                     ; ES selector
	push rax                        ; entry_state.es
	mov eax, ds                     ; DS selector
	push rax                        ; entry_state.ds
	mov eax, cs                     ; CS selector
	push rax                        ; entry_state.cs
	push rbp                        ; entry_state.bp_reg
	push rdi                        ; entry_state.di
	push rbx                        ; entry_state.bx
	push rsi                        ; entry_state.bp: boot_params
	mov rdi, rsp                    ; argument: &entry_state
	cld                             ; the C ABI wants DF = 0
	and rsp, -16                    ; 16-byte aligned at the call, as the ABI wants
	call testkern_main              ; does not return
.halt:
	cli                             ; in case it ever does: interrupts off
	hlt                             ; and stop
	jmp .halt                       ; forever (NMIs wake hlt)

section .kstack nobits alloc write noexec align=16  ; not in .bss: .bss is checked for zero
	resb 32768                      ; 32 KiB stack (crc32c tables alone are 8 KiB)
stack_top:                              ; the stack grows down from here

section .note.GNU-stack noalloc noexec nowrite progbits  ; no executable stack wanted
