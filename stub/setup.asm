; setup.asm - the real-mode part of a bzpack image: boot sector, the Linux
; boot protocol setup_header (filled in by the packer) and the code that a
; 16-bit loader (QEMU -kernel, GRUB linux16, ...) enters.
;
; In:  real mode at CS = S + 0x20, IP = 0, where S is the segment the loader
;      put this part at (QEMU: 0x1000); DS = ES = SS = S; interrupts may be on.
; Out: 32-bit protected mode, paging off, at code32_start:
;      CS = BOOT_CS, DS = ES = FS = GS = SS = BOOT_DS (flat 4 GiB),
;      esi = linear address of boot_params (built here, in our segment),
;      ebp = BZPACK_SETUP_TSC_MAGIC, edi:ebx = rdtsc at our first instruction,
;      interrupts off.
;
; Memory used in segment S (the loader reserves S:0000-S:7FFF for us;
; QEMU puts setup_data at S:8000):
;      0x0000 - file end        this file, then the kernel_version string
;      SETUP_BOOT_PARAMS        boot_params, one page
;      setup_tsc, gdt_ptr       our variables, right after it: the file's
;                               bytes stay as the packer wrote them, for
;                               the self-check
;      SETUP_STACK_TOP          real-mode stack, growing down

%include "bzpack_format.inc"
%include "selfcheck.inc"

COM1                    equ 0x3f8
E820_SMAP               equ 0x534d4150      ; "SMAP", int 15h/E820h signature
setup_tsc               equ SETUP_BOOT_PARAMS + BOOT_PARAMS_SIZE ; dq: our first rdtsc
gdt_ptr                 equ setup_tsc + 8   ; dw limit, dd linear base: the lgdt operand

        bits 16
        org 0

; ---- boot sector and setup_header: written by the packer -----------------
        times SETUP_HEADER_OFFSET db 0      ; no direct floppy boot
        times SETUP_HEADER_END - SETUP_HEADER_OFFSET db 0
                                            ; struct setup_header; its jump at
                                            ; 0x200 lands on setup_entry

; ---- real-mode entry ------------------------------------------------------
setup_entry:                                ; = SETUP_HEADER_END, where the jump lands
        cli                                 ; no BIOS interrupts until we ask
        cld                                 ; string ops count upwards
        rdtsc                               ; cycle count at our first instruction...
        mov     [setup_tsc], eax            ; ...kept for the stub's total= field
        mov     [setup_tsc + 4], edx
        ; The self-check (bzpack_format.h): this file's code and messages,
        ; before any of them runs.
        mov     ecx, -(setup_crc - BZPACK_SETUP_CRC_START) ;
        CRC32C_BITWISE [ecx + setup_crc], ecx, dl ;
        cmp     eax, [setup_crc]            ;
        je      setup_intact                ;
        mov     si, msg_setup_damaged       ;
        SELFCHECK_PUTS si, ecx              ;
        SELFCHECK_HALT                      ;
msg_setup_damaged:
        db      "bzpack: error: real-mode setup damaged: its code's CRC32C does not match", 10, 0
setup_intact:                               ; the self-check's prologue ends here
        mov     ax, ds                      ; DS = S per the boot protocol
        mov     ss, ax                      ; our own stack in our segment:
        mov     sp, SETUP_STACK_TOP         ; the loader's may be anywhere
        mov     es, ax                      ; ES = S for the string copies

        ; boot_params = zeroes + the setup_header as the loader left it
        ; (it wrote type_of_loader, cmd_line_ptr, ramdisk_* there)
        mov     di, SETUP_BOOT_PARAMS       ; destination: our boot_params
        mov     cx, BOOT_PARAMS_SIZE / 4    ; one page, in dwords
        xor     eax, eax                    ; fill value 0
        rep stosd                           ; zero boot_params
        mov     si, SETUP_HEADER_OFFSET     ; source: our own setup_header
        mov     di, SETUP_BOOT_PARAMS + SETUP_HEADER_OFFSET
        movzx   cx, byte [SETUP_HDR_jump + 1] ; the jump's offset: header ends
        add     cx, SETUP_HDR_jump + 2 - SETUP_HEADER_OFFSET ; at 0x202 + it
        rep movsb                           ; copy the header into boot_params

        call    read_e820                   ; the BIOS memory map
        call    enable_a20                  ; address line 20, or halt with an error
        call    check_stub                  ; our stub where we will jump, or halt
        call    check_memory                ; RAM for all of init_size, or halt

        ; Linear addresses, now that we know where the loader put us.
        xor     ebx, ebx                    ;
        mov     bx, ds                      ;
        shl     ebx, 4                      ; ebx = S << 4, our linear base
        lea     eax, [ebx + gdt]            ; the GDT's linear address...
        mov     [gdt_ptr + 2], eax          ; ...goes into the lgdt operand
        mov     word [gdt_ptr], gdt_end - gdt - 1 ; with its limit
        lea     eax, [ebx + protected_entry] ; far-return target below
        lea     esi, [ebx + SETUP_BOOT_PARAMS] ; esi = boot_params, kept to the end
        mov     ecx, [setup_tsc]            ; rdtsc low half, for the stub
        mov     edx, [setup_tsc + 4]        ; rdtsc high half

        lgdt    [gdt_ptr]                   ; flat BOOT_CS / BOOT_DS
        mov     ebx, cr0                    ;
        or      bl, 1                       ; CR0.PE: protected mode
        mov     cr0, ebx                    ;
        push    dword BOOT_CS               ; far return to 32-bit code:
        push    eax                         ; BOOT_CS:protected_entry
        o32 retf                            ; (loads CS from our GDT)

        bits 32
protected_entry:
        mov     ax, BOOT_DS                 ; flat data everywhere
        mov     ds, ax                      ;
        mov     es, ax                      ;
        mov     fs, ax                      ;
        mov     gs, ax                      ;
        mov     ss, ax                      ; the stub sets its own stack
        mov     ebx, ecx                    ; edi:ebx = our first rdtsc
        mov     edi, edx                    ;
        mov     ebp, BZPACK_SETUP_TSC_MAGIC ; ...and ebp says it is valid
        jmp     [esi + SETUP_HDR_code32_start] ; into the stub (boot protocol 32-bit entry)

        bits 16

; read_e820: int 15h, eax = E820h into boot_params.e820_table, count into
; boot_params.e820_entries.  Stops at the BIOS's last entry, on an error, or
; when the table is full.  Clobbers eax, ebx, ecx, edx, di.
read_e820:
        xor     ebx, ebx                    ; continuation value: start
        mov     di, SETUP_BOOT_PARAMS + BP_e820_table ; first slot
.next:
        mov     eax, 0xe820                 ; function
        mov     edx, E820_SMAP              ; signature
        mov     ecx, E820_ENTRY_SIZE        ; we take 20-byte entries
        mov     dword [di + 16], 1          ; type RAM if the BIOS writes 20 bytes only (ACPI 3 note)
        int     0x15                        ;
        jc      .done                       ; CF: error or past the end
        cmp     eax, E820_SMAP              ; BIOS must echo the signature
        jne     .done                       ;
        inc     byte [SETUP_BOOT_PARAMS + BP_e820_entries] ; keep this entry
        add     di, E820_ENTRY_SIZE         ; next slot
        cmp     byte [SETUP_BOOT_PARAMS + BP_e820_entries], E820_MAX_ENTRIES
        jae     .done                       ; table full
        test    ebx, ebx                    ; ebx = 0: that was the last one
        jnz     .next                       ;
.done:
        ret

; enable_a20: A20 already on (QEMU: yes), else the BIOS, the keyboard
; controller and port 0x92 in turn, each checked (stub/a20.inc); halts with
; an error if none works.  Clobbers ax, cx, dx, fs, gs.
enable_a20:
        call    a20_on                      ;
        je      .ok                         ;
        call    a20_bios                    ;
        je      .ok                         ;
        call    a20_kbc                     ;
        je      .ok                         ;
        call    a20_port92                  ;
        je      .ok                         ;
        mov     si, msg_a20                 ; nothing worked
        jmp     real_mode_error             ;
.ok:
        ret

%include "a20.inc"

; check_stub: our setup_header's magic numbers are intact, and the 32-bit
; entry is ours and in place: code32_start is
; BZPACK_LOAD_ADDR (bzpack images take no loader hooks) and the stub's
; marker is there (FFFF:0010 is linear 0x100000 once A20 is on).  A file cut
; short, a damaged setup_sects or loadflags would otherwise send us into
; whatever memory holds; so would a stub cut short, so its header must be
; there too.  Then the stub's self-check (bzpack_format.h), done for it
; here, so that nothing damaged runs in protected mode either.
; Clobbers eax, ecx, dl, fs, si; ebx = the header's offset at fs:0x10.
check_stub:
        mov     si, msg_bad_setup_header    ; the kernel reads these too
        cmp     word [SETUP_HDR_boot_flag], SETUP_BOOT_FLAG
        jne     real_mode_error             ;
        cmp     dword [SETUP_HDR_header], SETUP_HDRS_MAGIC
        jne     real_mode_error             ;
        mov     si, msg_code32_start        ;
        cmp     dword [SETUP_HDR_code32_start], BZPACK_LOAD_ADDR
        jne     real_mode_error             ;
        mov     ax, 0xffff                  ;
        mov     fs, ax                      ;
        mov     si, msg_no_stub             ;
        cmp     dword [fs:0x10 + BZPACK_STUB_MARKER_OFFSET], BZPACK_STUB_MARKER_LO
        jne     real_mode_error             ;
        cmp     dword [fs:0x10 + BZPACK_STUB_MARKER_OFFSET + 4], BZPACK_STUB_MARKER_HI
        jne     real_mode_error             ;
        mov     ebx, [SETUP_HDR_payload_offset] ; the bzpack_header ends where
        sub     ebx, BZPACK_HEADER_SIZE     ; the payload starts: is it loaded?
        jb      real_mode_error             ;
        cmp     ebx, 0xffff - 0x10 - BZPACK_HEADER_SIZE ; all of it within reach of FFFF:xxxx
        ja      real_mode_error             ;
        cmp     dword [fs:bx + 0x10], BZPACK_MAGIC
        jne     real_mode_error             ;
        ; The stub's self-check, done here for it, before we jump there:
        ; [0, stub size - 4) against its last word (bzpack_format.h).
        push    ebx                         ;
        sub     ebx, BZPACK_SELF_CRC_SIZE   ; ebx = offset of the CRC word
        jbe     real_mode_error             ; si = msg_no_stub
        mov     ecx, ebx                    ;
        neg     ecx                         ;
        add     ebx, 0x10                   ; fs:ebx = the CRC word
        CRC32C_BITWISE [fs:ebx + ecx], ecx, dl ;
        mov     si, msg_stub_damaged        ;
        cmp     eax, [fs:ebx]               ;
        jne     real_mode_error             ;
        pop     ebx                         ;
        ret

; check_memory: the stub puts its stack and page tables high in
; [run base, + init_size) before any C runs, so that range must be RAM, and
; so must the image at BZPACK_LOAD_ADDR.  With the image here the run base
; is the kernel's address, out_addr (the packer plans it so: a relocatable
; kernel's address is 1 MiB or more and aligned; bzpack_run_base()).  The
; rule is the stub's (memory.c is_ram): E820 RAM entries cover a range,
; adjacent or overlapping ones together (firmware may split RAM into
; several entries).  (A 32-bit loader such as GRUB allocates init_size
; itself.)  In: fs:bx + 0x10 = our header (check_stub).  Clobbers eax,
; ebx, ecx, edx, ebp, di, si.
check_memory:
        mov     si, msg_no_memory           ;
        mov     ebp, [fs:bx + 0x10 + BZHDR_out_addr] ; ebp = the run base
        mov     ebx, [SETUP_HDR_init_size]  ;
        add     ebx, ebp                    ; ebx = end of what we need there
        jc      real_mode_error             ; past 4 GiB: never RAM we can use
        call    check_ram                   ;
        mov     ebx, [SETUP_HDR_syssize]    ; the image: syssize * 16 bytes
        cmp     ebx, 0x10000000             ;   (below 4 GiB: no overflow)
        jae     real_mode_error             ;
        shl     ebx, 4                      ;
        mov     ebp, BZPACK_LOAD_ADDR       ;
        add     ebx, ebp                    ;
        jc      real_mode_error             ;
        ; fall through: check_ram returns for us

; check_ram: is [ebp, ebx) RAM?  Each pass over the map extends what is
; known to be RAM from ebp; a pass that extends nothing leaves a hole, and
; a hole ends in real_mode_error with the message at si.  Clobbers eax,
; ecx, edx, ebp, di.
check_ram:
.pass:
        cmp     ebp, ebx                    ; all of it known?
        jae     .ok                         ;
        mov     cl, [SETUP_BOOT_PARAMS + BP_e820_entries] ; entries left
        mov     ch, 0                       ; ch = this pass extended ebp
        mov     di, SETUP_BOOT_PARAMS + BP_e820_table
.entry:
        test    cl, cl                      ; end of the map
        jz      .pass_done                  ;
        cmp     dword [di + 16], E820_TYPE_RAM ; type
        jne     .next                       ;
        cmp     dword [di + 4], 0           ; base above 4 GiB
        jne     .next                       ;
        cmp     [di], ebp                   ; base above what is known:
        ja      .next                       ; not (yet) connected
        mov     eax, [di]                   ; end = base + length, 64-bit:
        mov     edx, [di + 12]              ;
        add     eax, [di + 8]               ;
        adc     edx, 0                      ;
        jnz     .ok                         ; reaches past 4 GiB: covers the rest
        cmp     eax, ebp                    ; ends inside what is known
        jbe     .next                       ;
        mov     ebp, eax                    ; known further
        mov     ch, 1                       ;
.next:
        add     di, E820_ENTRY_SIZE         ;
        dec     cl                          ;
        jmp     .entry                      ;
.pass_done:
        test    ch, ch                      ; nothing extended: a hole
        jz      real_mode_error             ;
        jmp     .pass                       ;
.ok:
        ret

; real_mode_error: print "bzpack: error: " and the string at ds:si on COM1,
; then halt.  The 32-bit stub has its own copy of this idea for later errors.
real_mode_error:
        push    si                          ;
        mov     si, msg_prefix              ;
        call    serial_puts16               ;
        pop     si                          ;
        call    serial_puts16               ;
.halt:
        cli                                 ;
        hlt                                 ; stop here for good
        jmp     .halt                       ;

serial_puts16:
        mov     dx, COM1 + 5                ; line status register
.wait:
        in      al, dx                      ;
        test    al, 0x20                    ; transmitter holding register empty?
        jz      .wait                       ;
        lodsb                               ; next character
        test    al, al                      ; NUL ends the string
        jz      .end                        ;
        mov     dx, COM1                    ; data register
        out     dx, al                      ;
        jmp     serial_puts16               ;
.end:
        ret

        align 8
gdt:                                        ; null, unused, BOOT_CS, BOOT_DS
        dq      0                           ; 0x00 null
        dq      0                           ; 0x08 unused
        dq      0x00cf9b000000ffff          ; 0x10 code: base 0, limit 4 GiB, 32-bit, accessed
        dq      0x00cf93000000ffff          ; 0x18 data: base 0, limit 4 GiB, writable, accessed
gdt_end:
msg_prefix:
        db      "bzpack: error: ", 0
msg_a20:
        db      "A20 gate would not open", 10, 0
msg_bad_setup_header:
        db      "setup_header damaged (boot_flag or HdrS)", 10, 0
msg_no_memory:
        db      "not enough memory: E820 RAM does not cover the image and init_size from the kernel's address", 10, 0
msg_code32_start:
        db      "code32_start is not 0x100000 (damaged header, or a loader hook bzpack does not take)", 10, 0
msg_no_stub:
        db      "no complete bzpack stub at 0x100000 (truncated image, damaged setup_sects or loadflags?)", 10, 0
msg_stub_damaged:
        db      "stub at 0x100000 damaged: its code's CRC32C does not match", 10, 0

; The self-check's CRC of [BZPACK_SETUP_CRC_START, here), written by the
; packer: this file's last word.
        align   4, db 0
setup_crc:
        dd      0

; The packer checks that this file plus the version string ends before
; SETUP_BOOT_PARAMS.
