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
CR0_MP                  equ 1 << 1          ; WAIT/FWAIT honour TS
CR0_EM                  equ 1 << 2          ; x87/SSE emulation: must be off
CR0_TS                  equ 1 << 3          ; task switched: SSE would fault
CR4_OSFXSR              equ 1 << 9          ; the OS saves SSE state: SSE allowed

        bits    32
        section .head progbits alloc exec nowrite align=16
        global  startup_32

startup_32:
        ENTRY_SELFCHECK ..@prologue_32_end    ; the whole stub checked; edi:ebx = cycles
        ENTRY_PROLOGUE BOOT_CS              ; esp = scratch stack

        ; The C code is built -msse2 (Makefile, STUB_CFLAGS_32): its
        ; 16-byte copies are single SSE moves, which is what makes the
        ; LZ4 decoder fast under a 32-bit kernel.  SSE2 needs CPUID's
        ; word, and the usual CR0/CR4 setting for a present FPU with SSE.
        ; The boot protocol promises the kernel nothing about CR0's FPU
        ; bits or CR4: Linux's i386 startup_32 loads CR0 with its own
        ; CR0_STATE (MP set, EM and TS clear, like here), writes CR4 only
        ; from its own saved features, and its FPU setup (fpu__init_cpu)
        ; sets OSFXSR itself, so nothing here needs undoing.
        push    ebx                         ; cpuid clobbers ebx (start cycles)
        mov     eax, 1                      ; feature flags
        cpuid                               ; (every i686 has CPUID)
        pop     ebx                         ;
        bt      edx, CPUID_EDX_SSE2         ;
        jnc     .no_sse2                    ;
        mov     eax, cr0                    ;
        and     eax, ~(CR0_EM | CR0_TS)     ;
        or      eax, CR0_MP                 ;
        mov     cr0, eax                    ;
        mov     eax, cr4                    ;
        or      eax, CR4_OSFXSR             ;
        mov     cr4, eax                    ;

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
