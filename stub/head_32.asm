; head_32.asm - entry of a stub whose kernel runs in 32-bit protected mode.
; Position independent, like all of the stub (head_common.inc).
;
; In:  the boot protocol's 32-bit entry: protected mode, paging off,
;      CS = BOOT_CS, DS = ES = SS = BOOT_DS (flat), esi = boot_params,
;      interrupts off.  From our own setup also ebp = BZPACK_SETUP_TSC_MAGIC
;      and edi:ebx = its first rdtsc.
; Out: the kernel's 32-bit entry, as the boot protocol says: same mode and
;      segments, esi = boot_params, ebx = edi = ebp = 0.  Or a
;      "bzpack: error:" line on COM1 and a halt.

%include "bzpack_format.inc"
%include "head_common.inc"
        WORD_REGISTERS 32

        bits    32
        section .head progbits alloc exec nowrite align=16
        global  startup_32

startup_32:
        ENTRY_PROLOGUE BOOT_CS              ; edi:ebx = cycles, esp = scratch stack
        push    esi                         ; boot_params, for the hand-off
        push    edi                         ; stub_main(bp, t_start): t_start high
        push    ebx                         ;   t_start low
        push    esi                         ;   bp
        call    stub_main                   ; eax = kernel entry (errors halt in C)
        mov     esi, [esp + 12]             ; esi = boot_params (our own copy)
        xor     ebx, ebx                    ; the protocol wants these zero
        xor     edi, edi                    ;
        xor     ebp, ebp                    ;
        jmp     eax                         ; into the kernel

        EARLY_ERROR early_error, ecx
        HEAD_DATA CODE32_DESCRIPTOR
