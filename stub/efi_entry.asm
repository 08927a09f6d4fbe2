; efi_entry.asm - the UEFI ways into a 64-bit stub (linked only into
; 64-bit stubs; linker/stub.ld records both entries in stub_info).
;
; The firmware (or GRUB, for the handover entry) loads the image wherever
; it likes, and the stub runs there: it is position independent, and
; efi_main (stub/efi.c) puts the kernel where the memory map has room,
; clear of the image, so nothing needs to move the stub.
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
        and     rsp, -16                    ; SysV wants 16-byte aligned calls
        mov     r12, r8                     ; handle
        mov     r13, r9                     ; system table
        mov     r14, rax                    ; boot_params or 0
        lea     r15, [rel startup_32]       ; where the loader put the stub
        mov     rdi, r12                    ; efi_main(handle, system table,
        mov     rsi, r13                    ;   boot_params or 0,
        mov     rdx, r14                    ;   where the stub runs)
        mov     rcx, r15                    ;
        call    efi_main                    ; returns only on failure
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

; efi_enter_kernel(entry = rdi, boot_params = rsi): after ExitBootServices,
; the boot protocol's 64-bit entry: our GDT with BOOT_CS (64-bit) and
; BOOT_DS, interrupts off, rsi = boot_params.  efi_main's own page tables
; identity-map what the protocol asks for, and this code.
efi_enter_kernel:
        cli                                 ; no firmware IDT from now on
        lea     rax, [rel gdt]              ; our GDT, where the stub runs:
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
