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

CPUID_EDX_SSE2          equ 26

        bits    32
        section .head progbits alloc exec nowrite align=16
        global  startup_32

startup_32:
        ENTRY_SELFCHECK ..@prologue_32_end    ; the whole stub checked; edi:ebx = cycles
        ENTRY_PROLOGUE BOOT_CS              ; esp = scratch stack

        ; The C code is built -msse2 (Makefile, STUB_CFLAGS_32): its
        ; 16-byte copies are single SSE moves, which is what makes the
        ; LZ4 decoder fast under a 32-bit kernel.  SSE2 needs CPUID's
        ; word, then ENABLE_SSE (head_common.inc).
        push    ebx                         ; cpuid clobbers ebx (start cycles)
        mov     eax, 1                      ; feature flags
        cpuid                               ; (every i686 has CPUID)
        pop     ebx                         ;
        bt      edx, CPUID_EDX_SSE2         ;
        jnc     .no_sse2                    ;
        ENABLE_SSE                          ;

        ; The stack top is 16-byte aligned (scratch is page aligned) and
        ; four pushes keep it so at the call, as GCC's i386 code assumes
        ; for its aligned SSE spills.
%if BZPACK_SCRATCH_STACK_TOP % 16
%error "the C stack must start 16-byte aligned"
%endif
        push    esi                         ; (alignment)
        push    edi                         ; stub_main(bp, t_start): t_start high
        push    ebx                         ;   t_start low
        push    esi                         ;   bp
        call    stub_main                   ; never returns: enter_kernel or a halt

.no_sse2:
        LOAD_ADDRESS ecx                    ; cpuid took edx: where are we, again
        add     ecx, msg_no_sse2 - startup_32 ; the message, as we run
        jmp     early_error                 ;
msg_no_sse2:
        db      "bzpack: error: this CPU has no SSE2, which the 32-bit stub needs", 10, 0

; enter_kernel(entry, boot_params), cdecl: stub_main's last call, made from
; wherever the stub runs by then (a copy of it high in init_size when the
; image lay where the kernel goes: this code too is position independent).
; The boot protocol's 32-bit hand-off.
        global  enter_kernel
enter_kernel:
        mov     eax, [esp + 4]              ; the kernel's entry
        mov     esi, [esp + 8]              ; esi = boot_params
        xor     ebx, ebx                    ; the protocol wants these zero
        xor     edi, edi                    ;
        xor     ebp, ebp                    ;
        jmp     eax                         ; into the kernel

        EARLY_ERROR early_error, ecx
        HEAD_DATA CODE32_DESCRIPTOR
