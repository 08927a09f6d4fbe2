; filler.asm - the generated filler (build/images/filler.bin, written by
; tools/mkfiller) as read-only data between filler_start and filler_end.
; Assembled twice from this source: -f elf32 and -f elf64.  The build
; passes -I$(B)/images/ so that incbin finds the file.

global filler_start:data                ; first byte of the filler
global filler_end:data                  ; one past its last byte

section .rodata.filler progbits alloc noexec nowrite align=64  ; into .rodata
filler_start:                           ; images/testkern.c checks its CRC-32C
	incbin "filler.bin"             ; FILLER_SIZE bytes
filler_end:                             ; filler_end - filler_start == FILLER_SIZE

section .note.GNU-stack noalloc noexec nowrite progbits  ; no executable stack wanted
