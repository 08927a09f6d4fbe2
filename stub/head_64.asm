; head_64.asm - entry of a stub whose kernel runs in 64-bit long mode:
; checks for long mode, identity-maps 4 GiB and enters it.
;
; In:  the boot protocol's 32-bit entry: protected mode, paging off,
;      CS = BOOT_CS, DS = ES = SS = BOOT_DS (flat), esi = boot_params,
;      interrupts off.  From our own setup also ebp = BZPACK_SETUP_TSC_MAGIC
;      and edi:ebx = its first rdtsc.
; Out: the kernel's 64-bit entry, as the boot protocol says: long mode,
;      paging on with 0-4 GiB identity-mapped (2 MiB pages in our scratch),
;      CS = BOOT_CS (64-bit), DS = ES = SS = BOOT_DS, rsi = boot_params.  Or a
;      "bzpack: error:" line on COM1 and a halt.

%include "bzpack_format.inc"
%include "head_common.inc"

PTE_PRESENT_WRITABLE    equ 0x003
PDE_2MIB_PAGE           equ 0x083           ; present, writable, page size
CR4_PAE                 equ 1 << 5
CR0_PG                  equ 1 << 31
MSR_EFER                equ 0xc0000080
EFER_LME                equ 1 << 8
CPUID_EXT_MAX           equ 0x80000000
CPUID_EXT_FEATURES      equ 0x80000001
CPUID_EDX_LM            equ 29
PAGE_TABLE_DWORDS       equ (BZPACK_SCRATCH_PD + 4 * 0x1000) / 4

        bits    32
        section .head progbits alloc exec nowrite align=16
        global  startup_32

startup_32:
        ENTRY_PROLOGUE BOOT_CS32_FOR_LONG_MODE ; edi:ebx = cycles, ebp = scratch

        push    ebx                         ; cpuid clobbers ebx
        mov     eax, CPUID_EXT_MAX          ; extended leaves present?
        cpuid                               ;
        cmp     eax, CPUID_EXT_FEATURES     ;
        jb      .no_long_mode               ;
        mov     eax, CPUID_EXT_FEATURES     ;
        cpuid                               ;
        bt      edx, CPUID_EDX_LM           ; long mode?
        jnc     .no_long_mode               ;
        pop     ebx                         ;

        push    edi                         ; rep stosd uses edi
        mov     edi, ebp                    ; zero PML4, PDPT and the 4 PDs
        mov     ecx, PAGE_TABLE_DWORDS      ;
        xor     eax, eax                    ;
        rep stosd                           ;
        pop     edi                         ;
        lea     eax, [ebp + BZPACK_SCRATCH_PDPT + PTE_PRESENT_WRITABLE]
        mov     [ebp + BZPACK_SCRATCH_PML4], eax ; PML4[0] -> PDPT: 0-512 GiB
        xor     ecx, ecx                    ; PDPT[i] -> PD i, i = 0..3: 0-4 GiB
.pdpt:
        mov     eax, ecx                    ;
        shl     eax, 12                     ; i * 4 KiB
        lea     eax, [ebp + eax + BZPACK_SCRATCH_PD + PTE_PRESENT_WRITABLE]
        mov     [ebp + BZPACK_SCRATCH_PDPT + ecx * 8], eax
        inc     ecx                         ;
        cmp     ecx, 4                      ;
        jb      .pdpt                       ;
        xor     ecx, ecx                    ; 2048 PDEs of 2 MiB: identity map
.pd:
        mov     eax, ecx                    ;
        shl     eax, 21                     ; i * 2 MiB
        or      eax, PDE_2MIB_PAGE          ;
        mov     [ebp + BZPACK_SCRATCH_PD + ecx * 8], eax ; high dword stays 0
        inc     ecx                         ;
        cmp     ecx, 4 * 512                ;
        jb      .pd                         ;

        mov     eax, cr4                    ;
        or      eax, CR4_PAE                ; long mode needs PAE paging
        mov     cr4, eax                    ;
        lea     eax, [ebp + BZPACK_SCRATCH_PML4] ;
        mov     cr3, eax                    ; our PML4
        mov     ecx, MSR_EFER               ;
        rdmsr                               ;
        or      eax, EFER_LME               ; long mode enable
        wrmsr                               ;
        mov     eax, cr0                    ;
        or      eax, CR0_PG                 ; paging on: long mode active
        mov     cr0, eax                    ;
        jmp     BOOT_CS:start_64            ; 64-bit code segment

.no_long_mode:
        mov     ecx, msg_no_long_mode       ;
        jmp     early_error                 ;

        bits    64
start_64:
        mov     edi, edi                    ; upper halves are undefined after
        mov     esi, esi                    ; the switch: zero-extend what we keep
        mov     ebx, ebx                    ;
        shl     rdi, 32                     ; t_start = edi:ebx
        or      rdi, rbx                    ;
        xchg    rdi, rsi                    ; stub_main(bp = rdi, t_start = rsi)
        mov     r12, rdi                    ; boot_params survives the call (callee-saved)
        and     rsp, -16                    ; SysV call alignment
        call    stub_main                   ; rax = kernel entry (errors halt in C)
        mov     rsi, r12                    ; rsi = boot_params
        xor     ebx, ebx                    ; nothing else is promised; clear the rest
        xor     edi, edi                    ;
        xor     ebp, ebp                    ;
        jmp     rax                         ; into the kernel

        bits    32
        EARLY_ERROR
        GDT     CODE64_DESCRIPTOR
msg_no_long_mode:
        db      "bzpack: error: this kernel is 64-bit and the CPU has no long mode", 10, 0
