; testloader_entry.asm - the multiboot entry of the test loader
; (images/testloader.c): a boot loader that uses the boot protocol's 64-bit
; entry, which neither QEMU -kernel nor GRUB's BIOS path does.  QEMU boots
; it with -kernel (multiboot, ELF32) and hands the bzImage over as a module.
;
; In:  multiboot: 32-bit protected mode, paging off, flat segments,
;      eax = 0x2badb002, ebx = the multiboot information.
; Out: testloader_main(magic, info) prepares boot_params, the image and
;      page tables and calls enter_64(), below, which switches to long mode,
;      copies the image into place and jumps to the 64-bit entry with
;      rsi = boot_params, or enter_32(),
;      which jumps to the 32-bit entry with esi = boot_params.  Both with
;      the GDT the protocol asks for: CS = BOOT_CS (0x10), DS = ES = SS =
;      BOOT_DS (0x18), flat.

MULTIBOOT_MAGIC         equ 0x1badb002
MULTIBOOT_FLAGS         equ 0x3             ; modules page-aligned, memory map wanted
CR4_PAE                 equ 1 << 5
CR0_PG                  equ 1 << 31
MSR_EFER                equ 0xc0000080
EFER_LME                equ 1 << 8
BOOT_CS                 equ 0x10
BOOT_DS                 equ 0x18
STACK_SIZE              equ 0x4000

        bits    32
        global  _start, enter_64, enter_32
        extern  testloader_main

        section .multiboot progbits alloc noexec nowrite align=4
        dd      MULTIBOOT_MAGIC, MULTIBOOT_FLAGS, -(MULTIBOOT_MAGIC + MULTIBOOT_FLAGS)

        section .text
_start:
        mov     esp, stack_top              ;
        cld                                 ;
        push    ebx                         ; testloader_main(magic, info)
        push    eax                         ;
        call    testloader_main             ; returns only by enter_64 or exit
.halt:
        cli                                 ;
        hlt                                 ;
        jmp     .halt                       ;

; enter_64(const struct handoff *h): cdecl.  Long mode with h->pml4, then
; copy h->copy_len bytes from h->copy_src to h->copy_dst (which may lie
; above 4 GiB), then jump to h->entry with rsi = h->boot_params.  Never
; returns.  struct handoff is in images/testloader.c.
H_ENTRY                 equ 0x00
H_COPY_DST              equ 0x08
H_COPY_SRC              equ 0x10
H_COPY_LEN              equ 0x14
H_BOOT_PARAMS           equ 0x18
H_PML4                  equ 0x1c
enter_64:
        mov     ebx, [esp + 4]              ; ebx = h (kept through the switch)
        lgdt    [gdt64_ptr]                 ;
        mov     eax, [ebx + H_PML4]         ; the page tables the C built
        mov     cr3, eax                    ;
        mov     eax, cr4                    ;
        or      eax, CR4_PAE                ;
        mov     cr4, eax                    ;
        mov     ecx, MSR_EFER               ;
        rdmsr                               ;
        or      eax, EFER_LME               ;
        wrmsr                               ;
        mov     eax, cr0                    ;
        or      eax, CR0_PG                 ;
        mov     cr0, eax                    ;
        jmp     BOOT_CS:.long_mode          ;
        bits    64
.long_mode:
        mov     eax, BOOT_DS                ;
        mov     ds, eax                     ;
        mov     es, eax                     ;
        mov     ss, eax                     ;
        mov     ebx, ebx                    ; zero-extend: the upper halves
        mov     esp, esp                    ; are undefined after the switch
        mov     esi, [rbx + H_COPY_SRC]     ; the protected-mode part...
        mov     rdi, [rbx + H_COPY_DST]     ; ...to where it runs
        mov     ecx, [rbx + H_COPY_LEN]     ;
        rep movsb                           ;
        mov     rax, [rbx + H_ENTRY]        ;
        mov     esi, [rbx + H_BOOT_PARAMS]  ; rsi = boot_params
        xor     ebx, ebx                    ; nothing else is promised
        xor     ebp, ebp                    ;
        xor     edi, edi                    ;
        jmp     rax                         ; the 64-bit entry
        bits    32

; enter_32(uint32_t entry, uint32_t boot_params): cdecl.  Never returns.
enter_32:
        mov     edi, [esp + 4]              ; entry
        mov     esi, [esp + 8]              ; esi = boot_params
        lgdt    [gdt32_ptr]                 ;
        jmp     BOOT_CS:.reload             ;
.reload:
        mov     eax, BOOT_DS                ;
        mov     ds, eax                     ;
        mov     es, eax                     ;
        mov     ss, eax                     ;
        mov     eax, edi                    ;
        xor     ebx, ebx                    ; the protocol wants these zero
        xor     edi, edi                    ;
        xor     ebp, ebp                    ;
        jmp     eax                         ; the 32-bit entry, esi = boot_params

        section .rodata
        align   8
gdt64:
        dq      0, 0                        ; null, unused
        dq      0x00af9b000000ffff          ; 0x10 BOOT_CS: 64-bit code
        dq      0x00cf93000000ffff          ; 0x18 BOOT_DS: data, flat 4 GiB
gdt64_end:
gdt32:
        dq      0, 0                        ; null, unused
        dq      0x00cf9b000000ffff          ; 0x10 BOOT_CS: 32-bit code, flat 4 GiB
        dq      0x00cf93000000ffff          ; 0x18 BOOT_DS
gdt32_end:
gdt64_ptr:
        dw      gdt64_end - gdt64 - 1
        dd      gdt64
gdt32_ptr:
        dw      gdt32_end - gdt32 - 1
        dd      gdt32

        section .bss
        alignb  16
        resb    STACK_SIZE
stack_top:
