; entry_32.asm - ELF entry point (_start) of testkern32.
;
; In:  32-bit protected mode, paging off, flat 4 GiB segments:
;      CS = BOOT_CS (0x10), DS = ES = SS = BOOT_DS (0x18);
;      esi = physical address of struct boot_params (the zero page);
;      ebx = edi = ebp = 0; IF = 0.  esp is not relied on.
; Out: never returns: push_entry_state (entry.inc) saves the registers, one
;      dword each, for testkern_main(&entry_state).

%include "entry.inc"                    ; the contract check, push_entry_state, entry_end

bits 32                                 ; this code runs in 32-bit protected mode
global _start                           ; the ELF entry point

section .text.entry progbits alloc exec nowrite align=16  ; linked first in .text
_start:
	mov esp, stack_top              ; our own stack (mov leaves eflags alone)
	pushfd                          ; entry_state.flags, before anything changes them
	push_entry_state eax, esi, ebx, edi, ebp
	mov eax, esp                    ; eax = &entry_state
	cld                             ; the C ABI wants DF = 0
	and esp, -16                    ; align the stack to 16 bytes
	sub esp, 12                     ; so that it is 16-aligned again after the push below
	push eax                        ; argument: &entry_state
	call testkern_main              ; does not return
	entry_end
