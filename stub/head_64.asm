; head_64.asm - entries of a stub whose kernel runs in 64-bit long mode.
; Both identity-map 4 GiB with our own page tables in the scratch and meet
; in long mode at start_64.
;
; In, startup_32 (code32_start): the boot protocol's 32-bit entry:
;      protected mode, paging off, CS = BOOT_CS, DS = ES = SS = BOOT_DS
;      (flat), esi = boot_params, interrupts off.  From our own setup also
;      ebp = BZPACK_SETUP_TSC_MAGIC and edi:ebx = its first rdtsc.
;      startup_32 checks for long mode and enters it.
; In, startup_64 (code32_start + BZPACK_ENTRY64_OFFSET, XLF_KERNEL_64): the
;      boot protocol's 64-bit entry: long mode, the loader's page tables
;      identity-mapping at least [load address, + init_size), boot_params
;      and the command line; rsi = boot_params, interrupts off.  Those
;      tables map too little for us (the initrd, setup_data, E820 holes),
;      so startup_64 builds ours in the scratch, which init_size covers,
;      and switches to them; identity maps on both sides make the switch
;      safe wherever we run.
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
CR4_LA57                equ 1 << 12

; BUILD_IDENTITY_MAP: PML4, PDPT and four page directories at ebp (the
; scratch) mapping 0-4 GiB onto itself with 2 MiB pages.  The same text
; assembles for both entries: every instruction means the same in 32-bit
; and 64-bit mode (32-bit registers, zero-extended; the scratch lies below
; 4 GiB).  Clobbers eax, ecx, edx; keeps ebx, esi, edi, ebp.
%macro BUILD_IDENTITY_MAP 0
        mov     edx, edi                    ; rep stosd uses edi
        mov     edi, ebp                    ; zero PML4, PDPT and the 4 PDs
        mov     ecx, PAGE_TABLE_DWORDS      ;
        xor     eax, eax                    ;
        rep stosd                           ;
        mov     edi, edx                    ;
        lea     eax, [ebp + BZPACK_SCRATCH_PDPT + PTE_PRESENT_WRITABLE]
        mov     [ebp + BZPACK_SCRATCH_PML4], eax ; PML4[0] -> PDPT: 0-512 GiB
        xor     ecx, ecx                    ; PDPT[i] -> PD i, i = 0..3: 0-4 GiB
%%pdpt:
        mov     eax, ecx                    ;
        shl     eax, 12                     ; i * 4 KiB
        lea     eax, [ebp + eax + BZPACK_SCRATCH_PD + PTE_PRESENT_WRITABLE]
        mov     [ebp + BZPACK_SCRATCH_PDPT + ecx * 8], eax
        inc     ecx                         ;
        cmp     ecx, 4                      ;
        jb      %%pdpt                      ;
        xor     ecx, ecx                    ; 2048 PDEs of 2 MiB: identity map
%%pd:
        mov     eax, ecx                    ;
        shl     eax, 21                     ; i * 2 MiB
        or      eax, PDE_2MIB_PAGE          ;
        mov     [ebp + BZPACK_SCRATCH_PD + ecx * 8], eax ; high dword stays 0
        inc     ecx                         ;
        cmp     ecx, 4 * 512                ;
        jb      %%pd                        ;
%endmacro

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

        BUILD_IDENTITY_MAP                  ; in the scratch at ebp

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
        push    dword BOOT_CS               ; the 64-bit code segment:
        LOAD_ADDRESS eax                    ; far return to start_64
        add     eax, start_64 - startup_32  ;
        push    eax                         ;
        retf                                ;

.no_long_mode:
        LOAD_ADDRESS ecx                    ;
        add     ecx, msg_no_long_mode - startup_32 ;
        jmp     early_error                 ;

        EARLY_ERROR early_error, ecx
        HEAD_DATA CODE64_DESCRIPTOR

        ; The 64-bit entry sits at a fixed offset (boot.rst: load address
        ; + 0x200); linker/stub.ld checks it.
        times   BZPACK_ENTRY64_OFFSET - ($ - startup_32) db 0xcc

        bits    64
        default rel                         ; the 64-bit entry reads memory rip-relative
        global  startup_64
startup_64:
        cli                                 ;
        cld                                 ;
        rdtsc                               ; no setup of ours ran: count from here
        mov     ebx, eax                    ; edi:ebx = start cycles, as from startup_32
        mov     edi, edx                    ;
        mov     dword [rsi + BP_scratch], BZPACK_ENTRY_64 ; which entry, for C
        lea     rdx, [startup_32]           ; rdx = load address
        mov     rax, rdx                    ; we and our scratch below 4 GiB
        shr     rax, 32                     ;   (32-bit registers below)
        jnz     .above_4g                   ;
        mov     rax, rsi                    ; boot_params within our 4 GiB map
        shr     rax, 32                     ;
        jnz     .bp_above_4g                ;
        mov     rax, cr4                    ; our tables have 4 levels
        test    eax, CR4_LA57               ;
        jnz     .la57                       ;
        CHECK_SCRATCH early_error_64        ; ebp = scratch, esp = its stack top
        lea     rax, [gdt]                  ; our GDT: the loader's may be overwritten
        sub     rsp, 16                     ;
        mov     [rsp + 8], rax              ;   base at [rsp + 8]
        mov     word [rsp + 6], gdt_end - gdt - 1 ; limit at [rsp + 6]
        lgdt    [rsp + 6]                   ;
        add     rsp, 16                     ;
        push    BOOT_CS                     ; CS from our GDT: far return
        lea     rax, [.reload]              ;
        push    rax                         ;
        o64 retf                            ;
.reload:
        mov     eax, BOOT_DS                ; flat data in every segment register
        mov     ds, eax                     ;
        mov     es, eax                     ;
        mov     fs, eax                     ;
        mov     gs, eax                     ;
        mov     ss, eax                     ;
        BUILD_IDENTITY_MAP                  ; in the scratch, which init_size covers
        lea     eax, [rbp + BZPACK_SCRATCH_PML4] ;
        mov     cr3, rax                    ; our tables from here on
        jmp     start_64                    ;
.above_4g:
        lea     rcx, [msg_above_4g]         ;
        jmp     early_error_64              ;
.bp_above_4g:
        lea     rcx, [msg_bp_above_4g]      ;
        jmp     early_error_64              ;
.la57:
        lea     rcx, [msg_la57]             ;
        jmp     early_error_64              ;

start_64:
        mov     edi, edi                    ; upper halves are undefined after
        mov     esi, esi                    ; the switch: zero-extend what we keep
        mov     ebx, ebx                    ;
        mov     esp, esp                    ;
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

        EARLY_ERROR early_error_64, rcx
msg_above_4g:
        db      "bzpack: error: loaded above 4 GiB (this stub runs below)", 10, 0
msg_bp_above_4g:
        db      "bzpack: error: boot_params above 4 GiB", 10, 0
msg_la57:
        db      "bzpack: error: 5-level paging at the 64-bit entry is not supported", 10, 0
msg_no_long_mode:
        db      "bzpack: error: this kernel is 64-bit and the CPU has no long mode", 10, 0
