; a20_boot.asm - a boot sector that checks each A20 method of stub/a20.inc
; alone: for each, turn A20 off (port 0x92 and the keyboard controller both:
; QEMU takes the gate from whichever wrote last), check that it is off,
; call the method, check that it is on.  One line per method on COM1:
;   "a20: bios ok" / "a20: kbc FAIL" / "a20: port92 FAIL (could not turn A20 off)"
; then isa-debug-exit 0x10 (QEMU status 33) if every method worked, else
; 0x11 (35).  ci/tests/test-a20.sh boots it with -drive if=floppy.

        bits 16
        org 0x7c00

COM1                    equ 0x3f8
DEBUG_EXIT_PORT         equ 0xf4
EXIT_ALL_OK             equ 0x10
EXIT_SOME_FAILED        equ 0x11
KBC_OUTPUT_A20_OFF      equ 0xdd            ; output port: A20 off, reset line high

start:
        xor     ax, ax                      ; the BIOS may enter at 07C0:0000
        mov     ds, ax                      ;
        mov     es, ax                      ;
        mov     ss, ax                      ;
        mov     sp, 0x7c00                  ; stack below us
        jmp     0:main                      ; CS = 0 to match org
main:
        cld                                 ;
        mov     byte [failures], 0          ;
        mov     bx, methods                 ;
.method:
        mov     si, [bx + 2]                ; the method's name
        call    puts                        ; "a20: <name>"
        call    a20_off                     ;
        je      .off_failed                 ; still on: nothing to test
        call    [bx]                        ; the method alone
        mov     si, msg_ok                  ;
        je      .print                      ;
        mov     si, msg_fail                ;
        inc     byte [failures]             ;
        jmp     .print                      ;
.off_failed:
        mov     si, msg_off_failed          ;
        inc     byte [failures]             ;
.print:
        call    puts                        ;
        add     bx, 4                       ;
        cmp     bx, methods_end             ;
        jb      .method                     ;

        mov     al, EXIT_ALL_OK             ;
        cmp     byte [failures], 0          ;
        je      .exit                       ;
        mov     al, EXIT_SOME_FAILED        ;
.exit:
        out     DEBUG_EXIT_PORT, al         ; QEMU stops here
.halt:
        cli                                 ;
        hlt                                 ;
        jmp     .halt                       ;

; a20_off: clear the gate both ways; ZF = 0 once it reads off (ZF = 1: it
; stayed on).
a20_off:
        in      al, 0x92                    ;
        and     al, 0xfc                    ; A20 off, no reset
        out     0x92, al                    ;
        call    kbc_wait_input              ;
        mov     al, KBC_WRITE_OUTPUT_PORT   ;
        out     KBC_STATUS, al              ;
        call    kbc_wait_input              ;
        mov     al, KBC_OUTPUT_A20_OFF      ;
        out     KBC_DATA, al                ;
        call    kbc_wait_input              ;
        jmp     a20_on                      ;

; puts: the NUL-terminated string at ds:si on COM1.  Clobbers al, dx, si.
puts:
        mov     dx, COM1 + 5                ; line status
.wait:
        in      al, dx                      ;
        test    al, 0x20                    ; transmitter empty?
        jz      .wait                       ;
        lodsb                               ;
        test    al, al                      ;
        jz      .end                        ;
        mov     dx, COM1                    ;
        out     dx, al                      ;
        jmp     puts                        ;
.end:
        ret

%include "a20.inc"

methods:                                    ; routine, name
        dw      a20_bios, name_bios
        dw      a20_kbc, name_kbc
        dw      a20_port92, name_port92
methods_end:
name_bios:      db "a20: bios", 0
name_kbc:       db "a20: kbc", 0
name_port92:    db "a20: port92", 0
msg_ok:         db " ok", 10, 0
msg_fail:       db " FAIL", 10, 0
msg_off_failed: db " FAIL (could not turn A20 off)", 10, 0
failures:       db 0

        times 510 - ($ - $$) db 0           ; (an error if the code grew too big)
        dw      0xaa55                      ; boot signature
