/* stubs.S - the boot side, built first, carried inside the packer. */
.macro blob name, file
	.section .rodata.\name, "a"
	.balign 16
	.global \name, \name\()_end
\name:
	.incbin "\file"
\name\()_end:
.endm

	blob stub_setup,   "stub/setup.bin"
	blob stub_none_32, "stub/none-32.bin"
	blob stub_none_64, "stub/none-64.bin"
	blob stub_lz4_32,  "stub/lz4-32.bin"
	blob stub_lz4_64,  "stub/lz4-64.bin"

	.section .note.GNU-stack, "", @progbits
