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
;      safe wherever we run, above 4 GiB too (XLF_CAN_BE_LOADED_ABOVE_4G:
;      then ours also map the GiB of our init_size and of boot_params).
; Out: the kernel's 64-bit entry, as the boot protocol says: long mode,
;      paging on with 0-4 GiB identity-mapped (2 MiB pages in our scratch),
;      CS = BOOT_CS (64-bit), DS = ES = SS = BOOT_DS, rsi = boot_params.  Or a
;      "bzpack: error:" line on COM1 and a halt.

%include "bzpack_format.inc"
%include "head_common.inc"
        WORD_REGISTERS 32

PTE_PRESENT_WRITABLE    equ 0x003
PDE_2MIB_PAGE           equ 0x083           ; present, writable, page size
CR4_PAE                 equ 1 << 5
CR0_PG                  equ 1 << 31
MSR_EFER                equ 0xc0000080
EFER_LME                equ 1 << 8
CPUID_EXT_MAX           equ 0x80000000
CPUID_EXT_FEATURES      equ 0x80000001
CPUID_EDX_LM            equ 29
PAGE_TABLE_DWORDS       equ BZPACK_SCRATCH_TABLES_END / 4
CR4_LA57                equ 1 << 12
CR0_MP                  equ 1 << 1          ; WAIT/FWAIT honour TS
CR0_EM                  equ 1 << 2          ; x87/SSE emulation: must be off
CR0_TS                  equ 1 << 3          ; task switched: SSE would fault
CR4_OSFXSR              equ 1 << 9          ; the OS saves SSE state: SSE allowed

; BUILD_IDENTITY_MAP: PML4, PDPT and four page directories at WBP (the
; scratch) mapping 0-4 GiB onto itself with 2 MiB pages (the spare page
; directories are zeroed too, for startup_64).  The same text assembles for
; both entries (WORD_REGISTERS): the tables' addresses are the scratch's,
; which lies above 4 GiB when a 64-bit loader put us there.
; Clobbers WAX, WCX, WDX; keeps ebx, esi, edi, WBP.
%macro BUILD_IDENTITY_MAP 0
        mov     WDX, WDI                    ; rep stosd uses edi
        mov     WDI, WBP                    ; zero every table
        mov     ecx, PAGE_TABLE_DWORDS      ;
        xor     eax, eax                    ;
        rep stosd                           ;
        mov     WDI, WDX                    ;
        lea     WAX, [WBP + BZPACK_SCRATCH_PDPT + PTE_PRESENT_WRITABLE]
        mov     [WBP + BZPACK_SCRATCH_PML4], WAX ; PML4[0] -> PDPT: 0-512 GiB
        xor     ecx, ecx                    ; PDPT[i] -> PD i, i = 0..3: 0-4 GiB
%%pdpt:
        mov     eax, ecx                    ;
        shl     eax, 12                     ; i * 4 KiB
        lea     WAX, [WBP + WAX + BZPACK_SCRATCH_PD + PTE_PRESENT_WRITABLE]
        mov     [WBP + BZPACK_SCRATCH_PDPT + WCX * 8], WAX
        inc     ecx                         ;
        cmp     ecx, 4                      ;
        jb      %%pdpt                      ;
        xor     ecx, ecx                    ; 2048 PDEs of 2 MiB: identity map
%%pd:
        mov     eax, ecx                    ;
        shl     eax, 21                     ; i * 2 MiB
        or      eax, PDE_2MIB_PAGE          ;
        mov     [WBP + BZPACK_SCRATCH_PD + WCX * 8], eax ; high dword stays 0
        inc     ecx                         ;
        cmp     ecx, 4 * 512                ;
        jb      %%pd                        ;
%endmacro

        bits    32
        section .head progbits alloc exec nowrite align=16
        global  startup_32

startup_32:
        ENTRY_SELFCHECK ..@prologue_32_end    ; the whole stub checked; edi:ebx = cycles
        jmp     startup_32_checked          ; the rest lies past the 64-bit entry

        ; The 64-bit entry sits at a fixed offset (boot.rst: load address
        ; + 0x200); linker/stub.ld checks it.
        times   BZPACK_ENTRY64_OFFSET - ($ - startup_32) db 0xcc

        bits    64
        default rel                         ; the 64-bit entry reads memory rip-relative
        WORD_REGISTERS 64
        global  startup_64
startup_64:
        cli                                 ;
        cld                                 ;
        rdtsc                               ; no setup of ours ran: count from here
        mov     ebx, eax                    ; edi:ebx = start cycles, as from startup_32
        mov     edi, edx                    ;
        SELFCHECK_64 rcx, rdx, r8d, halt    ; the whole stub, before any of it runs
..@prologue_64_end:
        mov     dword [rsi + BP_scratch], BZPACK_ENTRY_64 ; which entry, for C
        mov     rax, cr4                    ; our tables have 4 levels
        test    eax, CR4_LA57               ;
        jnz     .la57                       ;
        lea     rdx, [startup_32]           ; rdx = load address, anywhere
        CHECK_SCRATCH early_error_64        ; rbp = scratch, rsp = its stack top
        ; The loader maps [load address, + init_size) (boot.rst); our
        ; scratch counts from the run base, which is the load address when
        ; the loader honoured pref_address, but need not be.  Tables built
        ; where the loader did not map would fault: then a first set goes
        ; in the top 64 KiB of the loader's range (ours, and clear of the
        ; image: init_size exceeds the image by more than that), and maps
        ; the scratch for the real set.  Nothing touches the scratch first.
        mov     r11, rbp                    ; r11 = the scratch, kept
        lea     rcx, [_stub_end]            ;
        mov     eax, [rcx + BZHDR_init_size] ;
        add     rax, rdx                    ; rax = end of the loader's mapping
        cmp     rbp, rdx                    ; scratch inside [load, that end)?
        jb      .bootstrap                  ;
        lea     rcx, [rbp + BZPACK_SCRATCH_SIZE] ;
        cmp     rcx, rax                    ;
        jbe     .tables                     ;
.bootstrap:
        sub     rax, BZPACK_SCRATCH_SIZE    ; the top 64 KiB, page aligned
        and     rax, -0x1000                ;
        lea     rcx, [rax + BZPACK_SCRATCH_SIZE] ; clear of the scratch, whose
        cmp     rcx, r11                    ; tables they will build
        jbe     .first_set                  ;
        lea     rcx, [r11 + BZPACK_SCRATCH_SIZE] ;
        cmp     rax, rcx                    ;
        jb      .unmapped                   ;
.first_set:
        mov     rbp, rax                    ;
        lea     rsp, [rbp + BZPACK_SCRATCH_STACK_TOP] ;
        call    build_tables                ; mapped: the scratch too
        mov     rbp, r11                    ;
        lea     rsp, [rbp + BZPACK_SCRATCH_STACK_TOP] ;
.tables:
        call    build_tables                ; ours, in the scratch
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
        jmp     start_64.common             ; registers already 64-bit clean
.unmapped:
        lea     rcx, [msg_unmapped]         ;
        jmp     early_error_64              ;
.la57:
        lea     rcx, [msg_la57]             ;
        jmp     early_error_64              ;

; build_tables: our page tables at rbp (BUILD_IDENTITY_MAP: 0-4 GiB), and
; above 4 GiB also the GiBs of [load address, + init_size) (the image and
; the loader's map), of [run base, + init_size) (from the scratch, r11)
; and of boot_params (rsi): the tables in use map them now, ours must too.  Then CR3 = ours.  Clobbers rax, rcx, rdx, r8-r10.
build_tables:
        BUILD_IDENTITY_MAP                  ;
        lea     r10, [rbp + BZPACK_SCRATCH_PD_HIGH] ; next spare page directory
        lea     r8, [startup_32]            ; what the loader mapped: [load
        lea     rcx, [_stub_end]            ; address, + init_size), the image
        mov     eax, [rcx + BZHDR_init_size] ; and any first set of tables
        lea     r9, [r8 + rax - 1]          ; (init_size exceeds the image)
        call    map_span                    ;
        lea     rcx, [_stub_end]            ;
        mov     eax, [rcx + BZHDR_scratch_offset] ;
        mov     r8, r11                     ;
        sub     r8, rax                     ; r8 = run base (scratch - offset)
        mov     eax, [rcx + BZHDR_init_size] ; (checked against the offset)
        lea     r9, [r8 + rax - 1]          ; r9 = its last byte
        call    map_span                    ;
        mov     rax, rsi                    ; boot_params, both ends
        call    map_gib                     ;
        lea     rax, [rsi + BOOT_PARAMS_SIZE - 1] ;
        call    map_gib                     ;
        lea     rax, [rbp + BZPACK_SCRATCH_PML4] ;
        mov     cr3, rax                    ; these tables from here on
        ret                                 ;

; map_span: identity-map every GiB from r8 to r9 (its last byte) through
; map_gib.  Clobbers rax, rcx, rdx, r8; advances r10.
map_span:
        mov     rax, r8                     ;
        call    map_gib                     ;
        add     r8, 1 << 30                 ;
        and     r8, -(1 << 30)              ; the next GiB, until past the end
        cmp     r8, r9                      ;
        jbe     map_span                    ;
        ret                                 ;

; map_gib: identity-map the GiB holding physical address rax with 2 MiB
; pages through the next spare page directory (r10), unless it is mapped.
; Stops with an error past 512 GiB (one PDPT) or the spare directories.
; Clobbers rax, rcx, rdx; advances r10.
map_gib:
        shr     rax, 30                     ; the GiB
        cmp     rax, 512                    ;
        jae     .out_of_reach               ;
        lea     rdx, [rbp + BZPACK_SCRATCH_PDPT + rax * 8] ;
        cmp     qword [rdx], 0              ;
        jne     .done                       ; mapped already
        lea     rcx, [rbp + BZPACK_SCRATCH_TABLES_END] ;
        cmp     r10, rcx                    ;
        jae     .out_of_reach               ; no spare directory left
        lea     rcx, [r10 + PTE_PRESENT_WRITABLE] ;
        mov     [rdx], rcx                  ; PDPT[GiB] -> the spare directory
        shl     rax, 30                     ;
        or      rax, PDE_2MIB_PAGE          ;
        xor     ecx, ecx                    ;
.pde:
        mov     [r10 + rcx * 8], rax        ; 512 x 2 MiB
        add     rax, 1 << 21                ;
        inc     ecx                         ;
        cmp     ecx, 512                    ;
        jb      .pde                        ;
        add     r10, 0x1000                 ;
.done:
        ret                                 ;
.out_of_reach:
        lea     rcx, [msg_out_of_reach]     ;
        jmp     early_error_64              ;

start_64:
        mov     edi, edi                    ; upper halves are undefined after
        mov     esi, esi                    ; the switch: zero-extend what we keep
        mov     ebx, ebx                    ;
        mov     esp, esp                    ;
.common:
        ; SSE on for the payload check's XXH3 lanes (decode/xxh3.c) and
        ; gzip's PCLMULQDQ CRC-32 (decode/crc32.h): every long-mode CPU
        ; has SSE2, but the boot protocol promises nothing of CR0's FPU
        ; bits or CR4.  The kernel sets both itself (secondary_startup_64
        ; loads CR0_STATE and builds CR4 anew), so nothing is undone.
        ENABLE_SSE                          ;
        shl     rdi, 32                     ; t_start = edi:ebx
        or      rdi, rbx                    ;
        xchg    rdi, rsi                    ; stub_main(bp = rdi, t_start = rsi)
        and     rsp, -16                    ; SysV call alignment
        call    stub_main                   ; never returns: enter_kernel or a halt

; enter_kernel(entry = rdi, boot_params = rsi), SysV: stub_main's last
; call, made from wherever the stub runs by then (a copy of it high in
; init_size when the image lay where the kernel goes: this code too is
; position independent).  The boot protocol's 64-bit hand-off, our page
; tables identity-mapping 0-4 GiB.
        global  enter_kernel
enter_kernel:
        mov     rax, rdi                    ; the kernel's entry; rsi = boot_params
        xor     ebx, ebx                    ; nothing else is promised; clear the rest
        xor     edi, edi                    ;
        xor     ebp, ebp                    ;
        jmp     rax                         ; into the kernel

        EARLY_ERROR early_error_64, rcx

        bits    32
        WORD_REGISTERS 32
startup_32_checked:
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

        bits    64
        WORD_REGISTERS 64
        HEAD_DATA CODE64_DESCRIPTOR
msg_out_of_reach:
        db      "bzpack: error: image or boot_params beyond what the 64-bit entry maps (512 GiB)", 10, 0
msg_unmapped:
        db      "bzpack: error: scratch outside the loader's map, and no room to map it", 10, 0
msg_la57:
        db      "bzpack: error: 5-level paging at the 64-bit entry is not supported", 10, 0
msg_no_long_mode:
        db      "bzpack: error: this kernel is 64-bit and the CPU has no long mode", 10, 0
