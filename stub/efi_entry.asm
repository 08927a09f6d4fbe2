; efi_entry.asm - the UEFI ways into a 64-bit stub (linked only into
; 64-bit stubs; linker/stub.ld records both entries in stub_info).
;
; The firmware (or GRUB, for the handover entry) loads the image wherever
; it likes.  The stub is position independent, but the firmware's choice
; may lie where the kernel goes, and the stub's code must outlive the
; kernel's move into place after ExitBootServices.  So this code claims
; the range the packer planned the stub for, at BZPACK_LOAD_ADDR, with
; AllocatePages(AllocateAddress), copies the stub and its bzpack_header
; there and calls efi_main (stub/efi.c) in the copy.  The payload stays
; where the loader put it: efi_main decompresses it from there.
;
; In:  efi_pe_entry: the PE entry point, Microsoft x64 convention:
;        rcx = image handle, rdx = system table; firmware's long mode,
;        identity-mapped memory, boot services running.
;      efi_handover_entry: the EFI handover protocol (boot.rst), at
;        handover_offset + 0x200 in the protected-mode part, SysV:
;        rdi = image handle, rsi = system table, rdx = boot_params.
; Out: EFI_CRC_ERROR when the stub's self-check fails (selfcheck.inc);
;      efi_main's EFI status back to the caller, when it fails; on
;      success efi_main enters the kernel through efi_enter_kernel and
;      never returns.

%include "bzpack_format.inc"
%include "selfcheck.inc"

EFI_SYSTAB_BOOT_SERVICES equ 0x60           ; EFI_SYSTEM_TABLE.BootServices
EFI_BS_ALLOCATE_PAGES    equ 0x28           ; EFI_BOOT_SERVICES.AllocatePages
EFI_ALLOCATE_ADDRESS     equ 2
EFI_LOADER_CODE          equ 1              ; executable where firmware enforces NX
PAGE_SIZE                equ 4096
COM1                     equ 0x3f8
LSR_THR_EMPTY            equ 0x20
UART_WAIT_LIMIT          equ 100000         ; a missing UART must not hang us

        bits    64
        default rel
        section .text
        global  efi_pe_entry, efi_handover_entry, efi_enter_kernel
        extern  efi_main, startup_32, _stub_end

efi_pe_entry:
        SELFCHECK_64 r10, r11, r9d, efi     ; the whole stub first (rax, r9-r11: free)
..@prologue_efi_end:
        mov     r8, rcx                     ; image handle
        mov     r9, rdx                     ; system table
        xor     eax, eax                    ; no boot_params: efi_main builds them
        jmp     efi_common

efi_handover_entry:
        SELFCHECK_64 r10, r11, r9d, efi     ; the whole stub first (rax, r9-r11: free)
..@prologue_handover_end:
        mov     r8, rdi                     ; image handle
        mov     r9, rsi                     ; system table
        mov     rax, rdx                    ; the loader's boot_params

; r8 = handle, r9 = system table, rax = boot_params or 0.  Saves what
; either convention wants kept (the Microsoft one adds rdi and rsi).
efi_common:
        push    rbx
        push    rbp
        push    rdi
        push    rsi
        push    r12
        push    r13
        push    r14
        push    r15
        mov     rbp, rsp                    ; restored from here on the way out
        and     rsp, -16                    ; both conventions want 16-byte calls
        sub     rsp, 48                     ; 32 bytes of shadow space, 8 for addr
        mov     r12, r8                     ; handle
        mov     r13, r9                     ; system table
        mov     r14, rax                    ; boot_params or 0
        lea     r15, [rel startup_32]       ; where the loader put the stub
        cld                                 ; rep movsb counts upwards

        cmp     r15, BZPACK_LOAD_ADDR       ; already there (GRUB may do that)?
        je      .call_main                  ; then the loader owns those pages
        lea     rbx, [rel _stub_end]        ;
        sub     rbx, r15                    ;
        add     rbx, BZPACK_HEADER_SIZE     ; rbx = stub + header bytes
        mov     qword [rsp + 32], BZPACK_LOAD_ADDR
        mov     ecx, EFI_ALLOCATE_ADDRESS   ; AllocatePages(AllocateAddress,
        mov     edx, EFI_LOADER_CODE        ;   EfiLoaderCode,
        lea     r8, [rbx + PAGE_SIZE - 1]   ;   pages,
        shr     r8, 12                      ;
        lea     r9, [rsp + 32]              ;   &addr)
        mov     rax, [r13 + EFI_SYSTAB_BOOT_SERVICES]
        call    [rax + EFI_BS_ALLOCATE_PAGES]
        test    rax, rax                    ; EFI_SUCCESS?
        jnz     .no_room                    ;
        mov     rsi, r15                    ; copy the stub and its header
        mov     edi, BZPACK_LOAD_ADDR       ; to the address it was linked at
        mov     rcx, rbx                    ;
        rep movsb                           ;

.call_main:
        mov     rdi, r12                    ; efi_main(handle, system table,
        mov     rsi, r13                    ;   boot_params or 0,
        mov     rdx, r14                    ;   where the loader put the stub)
        mov     rcx, r15                    ;
        lea     rax, [rel efi_main]         ; efi_main in the copy:
        sub     rax, r15                    ;   its offset in the stub
        add     rax, BZPACK_LOAD_ADDR       ;   from where the copy starts
        call    rax                         ; returns only on failure
.out:
        mov     rsp, rbp
        pop     r15
        pop     r14
        pop     r13
        pop     r12
        pop     rsi
        pop     rdi
        pop     rbp
        pop     rbx
        ret                                 ; rax = EFI status

; The stub's link range is taken: nothing of ours can run.  Say so on
; COM1 (boot services own the console, but only C can reach it from
; here) and hand the firmware its status back.
.no_room:
        mov     rbx, rax                    ; keep the status
        lea     rsi, [rel msg_no_room]      ;
.next_char:
        mov     ecx, UART_WAIT_LIMIT        ;
        mov     dx, COM1 + 5                ; line status register
.wait:
        in      al, dx                      ;
        test    al, LSR_THR_EMPTY           ;
        jnz     .send                       ;
        dec     ecx                         ;
        jnz     .wait                       ;
.send:
        lodsb                               ; next character
        test    al, al                      ; NUL ends the line
        jz      .failed                     ;
        mov     dx, COM1                    ;
        out     dx, al                      ;
        jmp     .next_char                  ;
.failed:
        mov     rax, rbx                    ;
        jmp     .out                        ;

; efi_enter_kernel(entry = rdi, boot_params = rsi): after ExitBootServices,
; the boot protocol's 64-bit entry: our GDT with BOOT_CS (64-bit) and
; BOOT_DS, interrupts off, rsi = boot_params.  The firmware's page tables
; identity-map all memory, which covers what the protocol asks for.
efi_enter_kernel:
        cli                                 ; no firmware IDT from now on
        lea     rax, [rel gdt]              ; our GDT, in the copy we run in:
        sub     rsp, 16                     ;   a 10-byte pseudo-descriptor
        mov     word [rsp + 6], gdt_end - gdt - 1 ; limit
        mov     [rsp + 8], rax              ;   linear base
        lgdt    [rsp + 6]                   ;
        add     rsp, 16                     ;
        mov     eax, BOOT_DS                ;
        mov     ds, eax                     ;
        mov     es, eax                     ;
        mov     fs, eax                     ;
        mov     gs, eax                     ;
        mov     ss, eax                     ;
        push    BOOT_CS                     ; far return into BOOT_CS
        lea     rax, [rel .reloaded]        ;
        push    rax                         ;
        o64 retf                            ;
.reloaded:
        mov     rax, rdi                    ; the kernel's entry
        xor     ebx, ebx                    ; nothing else is promised; clear the rest
        xor     edi, edi                    ;
        xor     ebp, ebp                    ;
        jmp     rax                         ;

        section .rodata
        align   8
gdt:                                        ; accessed bits preset: never written
        dq      0                           ; 0x00 null
        dq      0x00cf9b000000ffff          ; 0x08 32-bit code (unused)
        dq      0x00af9b000000ffff          ; 0x10 BOOT_CS: 64-bit code
        dq      0x00cf93000000ffff          ; 0x18 BOOT_DS: flat data
gdt_end:
msg_no_room:
        db      "bzpack: error: EFI: the stub's memory at 1 MiB is taken (AllocatePages)", 10, 0
