; smp_trampoline.asm - where the other CPUs start: a blob that stub/smp.c
; copies to the trampoline page (below 1 MiB, 4 KiB aligned), with the
; boot CPU's struct smp_params at BZPACK_SMP_PARAMS in the same page.
; Assembled once per word size (WORD_BITS = 32 or 64, stub/stub.mk): the
; stub's own mode, which the CPUs take.  Nothing in it depends on where it
; runs: the page's address comes from CS at the start-up IPI.
;
; In:  smp_trampoline: real mode at CS:0, CS = the page >> 4 (what a
;      start-up IPI with the page's vector gives); nothing else known.
; Out: a CPU whose APIC ID has a slot in smp_params.apic_id[] that it wins
;      (state[] WAITING -> STARTED, a locked compare-exchange: the boot CPU
;      gives the slot up the same way when it stops waiting) runs, in the
;      boot CPU's mode, CR0, CR3, CR4, on stack[slot]:
;        smp_ap_main(params, slot)   (cdecl, or SysV in long mode)
;      and on its return writes state[slot] = PARKED, goes back to real
;      mode and halts with interrupts off, in this page, for good: from
;      then on it uses nothing but this page, which nobody else writes,
;      until the kernel's own INIT-SIPI-SIPI.  A CPU with no slot, or
;      that lost it, halts there at once.
; The idea of a real-mode trampoline that climbs to the kernel's mode
; with its own GDT is Linux's arch/x86/realmode/rm/trampoline_*.S (read,
; not copied).

%include "bzpack_format.inc"

CR0_PE                  equ 1 << 0
CR0_PG                  equ 1 << 31
MSR_EFER                equ 0xc0000080
EFER_LME                equ 1 << 8

        section .rodata
        global  smp_trampoline, smp_trampoline_end, smp_trampoline_pm32, smp_trampoline_rm
        align   16
smp_trampoline:
        bits    16
        cli                                 ;
        cld                                 ;
        mov     ax, cs                      ;
        mov     ds, ax                      ; ds = the page, for lgdt
        movzx   edi, ax                     ;
        shl     edi, 4                      ; edi = the page's address
        o32 lgdt [SMP_gdt_limit]            ; our GDT, in the page
        mov     eax, cr0                    ;
        or      al, CR0_PE                  ; protected mode
        mov     cr0, eax                    ;
        o32 jmp far [SMP_pm32_eip]          ; into 32-bit code (no stack:
                                            ;  CPUs may start at once)
        bits    32
smp_trampoline_pm32:
        mov     eax, SMP_DS                 ; flat data
        mov     ds, eax                     ;
        mov     es, eax                     ;
        mov     fs, eax                     ;
        mov     gs, eax                     ;
        mov     ss, eax                     ;
        ; Which slot is ours: the APIC ID against the boot CPU's list.
        mov     eax, 1                      ;
        cpuid                               ; ebx[31:24]: the initial APIC ID
        shr     ebx, 24                     ;
        cmp     dword [edi + SMP_x2apic], 0 ;
        je      .have_id                    ;
        mov     eax, 0xb                    ; the x2APIC ID
        xor     ecx, ecx                    ;
        cpuid                               ;
        mov     ebx, edx                    ;
.have_id:
        mov     eax, ebx                    ; eax = our APIC ID
        mov     ebx, edi                    ; ebx = the page, from here on
        mov     ebp, 1                      ; ebp = the slot (0 is the boot CPU's)
.find:
        cmp     ebp, [ebx + SMP_count]      ;
        jae     halt_real_mode              ; not ours to run
        cmp     eax, [ebx + SMP_apic_id + ebp * 4] ;
        je      .claim                      ;
        inc     ebp                         ;
        jmp     .find                       ;
.claim:
        mov     eax, BZPACK_SMP_WAITING     ;
        mov     ecx, BZPACK_SMP_STARTED     ;
        lock cmpxchg [ebx + SMP_state + ebp * 4], ecx ;
        jne     halt_real_mode              ; the boot CPU gave up on us
        mov     esp, [ebx + SMP_stack + ebp * 8] ; (below 1 MiB)
        mov     eax, [ebx + SMP_cr4]        ; the boot CPU's mode: SSE, PAE
        mov     cr4, eax                    ;
%if WORD_BITS == 64
        mov     eax, [ebx + SMP_cr3]        ; its page tables
        mov     cr3, eax                    ;
        mov     ecx, MSR_EFER               ;
        rdmsr                               ;
        or      eax, EFER_LME               ;
        wrmsr                               ;
        mov     eax, [ebx + SMP_cr0]        ; paging on: long mode
        mov     cr0, eax                    ;
        lea     eax, [ebx + lm64 - smp_trampoline] ;
        push    dword SMP_CS64              ;
        push    eax                         ;
        retf                                ;

        bits    64
lm64:
        mov     ebx, ebx                    ; the upper halves are undefined
        mov     ebp, ebp                    ; after the switch
        mov     esp, esp                    ;
        lea     edi, [rbx + BZPACK_SMP_PARAMS] ; smp_ap_main(params, slot)
        mov     esi, ebp                    ;
        and     rsp, -16                    ; SysV alignment at the call
        call    [rbx + SMP_entry]           ; keeps rbx, rbp
        lea     eax, [rbx + compat32 - smp_trampoline]
        push    SMP_CS32                    ; back to 32-bit code
        push    rax                         ;
        o64 retf                            ;

        bits    32
compat32:
        mov     eax, cr0                    ; paging off: out of long mode,
        and     eax, ~CR0_PG                ; off the page tables in our
        mov     cr0, eax                    ; scratch (the kernel's memory)
        mov     ecx, MSR_EFER               ;
        rdmsr                               ;
        and     eax, ~EFER_LME              ;
        wrmsr                               ;
%else
        mov     eax, [ebx + SMP_cr0]        ; its FPU bits
        mov     cr0, eax                    ;
        and     esp, -16                    ; 16-byte aligned at the call,
        sub     esp, 8                      ; as GCC's SSE spills assume
        push    ebp                         ; smp_ap_main(params, slot)
        lea     eax, [ebx + BZPACK_SMP_PARAMS] ;
        push    eax                         ;
        call    [ebx + SMP_entry]           ; keeps ebx, ebp
%endif
        ; Done: say so, then leave everything but this page.
        mov     dword [ebx + SMP_state + ebp * 4], BZPACK_SMP_PARKED

; halt_real_mode: (32-bit protected mode, paging off, ebx = the page)
; back to real mode, where a stray NMI finds the BIOS's vector table, not
; a descriptor table of ours, and halt there.
halt_real_mode:
        jmp     SMP_CS16:.pm16 - smp_trampoline ; 16-bit code, based at the page
        bits    16
.pm16:
        mov     eax, cr0                    ;
        and     eax, ~(CR0_PE | CR0_PG)     ; real mode
        mov     cr0, eax                    ;
        jmp     far [ebx + SMP_rm_ip]       ; CS = the page's segment
smp_trampoline_rm:
        cli                                 ;
        hlt                                 ; until the kernel's INIT
        jmp     smp_trampoline_rm           ;
smp_trampoline_end:

%if smp_trampoline_end - smp_trampoline > BZPACK_SMP_PARAMS
%error "the trampoline runs into its parameters"
%endif
