/* serial.c - COM1, polled: the stub's only output. */
#include "portio.h"
#include "stub.h"

#define COM1            0x3f8
#define UART_DATA       0       /* DLAB = 0 */
#define UART_DIVISOR_LO 0       /* DLAB = 1 */
#define UART_IER        1
#define UART_DIVISOR_HI 1       /* DLAB = 1 */
#define UART_FCR        2
#define UART_LCR        3
#define UART_MCR        4
#define UART_LSR        5
#define LCR_8N1         0x03
#define LCR_DLAB        0x80
#define FCR_ENABLE_CLEAR 0x07
#define MCR_DTR_RTS     0x03
#define LSR_THR_EMPTY   0x20

void serial_init(void)
{
	outb(COM1 + UART_IER, 0);               /* polled: no interrupts */
	outb(COM1 + UART_LCR, LCR_DLAB);
	outb(COM1 + UART_DIVISOR_LO, 1);        /* 115200 baud */
	outb(COM1 + UART_DIVISOR_HI, 0);
	outb(COM1 + UART_LCR, LCR_8N1);
	outb(COM1 + UART_FCR, FCR_ENABLE_CLEAR);
	outb(COM1 + UART_MCR, MCR_DTR_RTS);
}

static void serial_putc(char c)
{
	while (!(inb(COM1 + UART_LSR) & LSR_THR_EMPTY))
		;
	outb(COM1 + UART_DATA, (uint8_t)c);
}

void serial_puts(const char *s)
{
	while (*s)
		serial_putc(*s++);
}

/* Decimal by subtracting powers of ten: a 64-bit division would need
 * libgcc's __udivdi3 in the 32-bit stub.  The powers are computed, not
 * stored: 160 bytes of table against a few instructions. */
#define U64_DIGITS 20

void serial_put_u64(uint64_t v)
{
	uint64_t powers[U64_DIGITS];
	int i;

	powers[0] = 1;
	for (i = 1; i < U64_DIGITS; i++)
		powers[i] = powers[i - 1] * 10;
	for (i = U64_DIGITS - 1; i > 0 && v < powers[i]; i--)
		;
	for (; i >= 0; i--) {
		char digit = '0';
		while (v >= powers[i]) {
			v -= powers[i];
			digit++;
		}
		serial_putc(digit);
	}
}

void serial_put_hex(uint64_t v)
{
	int shift = 60;

	serial_puts("0x");
	while (shift > 0 && !(v >> shift))
		shift -= 4;
	for (; shift >= 0; shift -= 4) {
		unsigned nibble = (unsigned)(v >> shift) & 0xf;
		serial_putc((char)(nibble < 10 ? '0' + nibble : 'a' + nibble - 10));
	}
}
