; entry_64.asm - ELF entry point (_start) of testkern64.
;
; In:  64-bit long mode, paging on with (at least) the kernel, the zero
;      page and the command line identity-mapped;
;      CS = BOOT_CS (0x10), DS = ES = SS = BOOT_DS (0x18);
;      rsi = physical address of struct boot_params (the zero page); IF = 0.
;      rsp is not relied on.
; Out: never returns: push_entry_state (entry.inc) saves the registers, one
;      qword each, for testkern_main(&entry_state).

%include "entry.inc"                    ; the contract check, push_entry_state, entry_end

bits 64                                 ; this code runs in 64-bit long mode
default rel                             ; memory operands are rip-relative
global _start                           ; the ELF entry point

section .text.entry progbits alloc exec nowrite align=16  ; linked first in .text
_start:
	lea rsp, [stack_top]            ; our own stack (lea leaves rflags alone)
	pushfq                          ; entry_state.flags, before anything changes them
	push_entry_state rax, rsi, rbx, rdi, rbp
	mov rdi, rsp                    ; argument: &entry_state
	cld                             ; the C ABI wants DF = 0
	and rsp, -16                    ; 16-byte aligned at the call, as the ABI wants
	call testkern_main              ; does not return
	entry_end
