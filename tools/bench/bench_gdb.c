/* bench_gdb.c - see bench_gdb.h.  Packets are "$data#cc", cc the sum of
 * the data bytes modulo 256 in hex, each acknowledged with '+' (GDB's
 * "Remote Protocol" appendix: Overview, Packets, Stop Reply Packets). */
#include "bench_gdb.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "bench_qemu.h"

#define GDB_PACKET_MAX 1024

int gdb_connect(struct gdb_conn *g, const char *socket_path, struct error *err)
{
	struct sockaddr_un sa;

	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(socket_path) >= sizeof(sa.sun_path))
		return fail_with(err, "gdbstub socket path too long");
	strcpy(sa.sun_path, socket_path);
	g->fd = socket(AF_UNIX, SOCK_STREAM, 0);
	if (g->fd < 0)
		return fail_with(err, "socket: %s", strerror(errno));
	if (connect(g->fd, (struct sockaddr *)&sa, sizeof(sa)) == 0)
		return 0;
	fail_with(err, "QEMU's gdbstub %s: %s", socket_path, strerror(errno));
	close(g->fd);
	g->fd = -1;
	return -1;
}

void gdb_close(struct gdb_conn *g)
{
	if (g->fd >= 0)
		close(g->fd);
	g->fd = -1;
}

static int read_byte(struct gdb_conn *g, double deadline, struct error *err)
{
	uint8_t c;

	for (;;) {
		double left = deadline - bench_now();
		if (left <= 0)
			return fail_with(err, "gdbstub: no answer in time");
		struct pollfd p = { g->fd, POLLIN, 0 };
		int r = poll(&p, 1, left > 1.0 ? 1000 : (int)(left * 1000) + 1);
		if (r < 0 && errno != EINTR)
			return fail_with(err, "gdbstub: poll: %s", strerror(errno));
		if (r <= 0)
			continue;
		ssize_t got = read(g->fd, &c, 1);
		if (got == 1)
			return c;
		return fail_with(err, "gdbstub: connection closed (QEMU exited?)");
	}
}

static int write_all(struct gdb_conn *g, const char *s, size_t len, struct error *err)
{
	while (len > 0) {
		/* send, not write: a QEMU that died must not SIGPIPE us. */
		ssize_t n = send(g->fd, s, len, MSG_NOSIGNAL);
		if (n <= 0)
			return fail_with(err, "gdbstub: send: %s", strerror(errno));
		s += n;
		len -= (size_t)n;
	}
	return 0;
}

static int send_packet(struct gdb_conn *g, const char *data, struct error *err)
{
	char packet[GDB_PACKET_MAX + 4];
	unsigned sum = 0;

	for (const char *p = data; *p; p++)
		sum += (uint8_t)*p;
	int len = snprintf(packet, sizeof(packet), "$%s#%02x", data, sum & 0xff);
	if (len < 0 || (size_t)len >= sizeof(packet))
		return fail_with(err, "gdbstub: packet too long");
	return write_all(g, packet, (size_t)len, err);
}

/* The next packet's data, acknowledged; '+' acks and '%' notifications
 * before it are skipped.  A bad checksum is an error, not a retry: on a
 * local socket it means we are not talking to a gdbstub. */
static int read_packet(struct gdb_conn *g, char *data, size_t size, double deadline,
		       struct error *err)
{
	int c;
	size_t n = 0;
	unsigned sum = 0;

	do {
		if ((c = read_byte(g, deadline, err)) < 0)
			return -1;
	} while (c != '$');
	for (;;) {
		if ((c = read_byte(g, deadline, err)) < 0)
			return -1;
		if (c == '#')
			break;
		if (n + 1 >= size)
			return fail_with(err, "gdbstub: reply longer than %zu bytes", size);
		data[n++] = (char)c;
		sum += (unsigned)c;
	}
	data[n] = '\0';
	char hex[3] = { 0, 0, 0 };
	for (int i = 0; i < 2; i++) {
		if ((c = read_byte(g, deadline, err)) < 0)
			return -1;
		hex[i] = (char)c;
	}
	unsigned got;
	if (sscanf(hex, "%2x", &got) != 1 || got != (sum & 0xff))
		return fail_with(err, "gdbstub: bad checksum on reply '%.40s'", data);
	return write_all(g, "+", 1, err);
}

int gdb_hw_break(struct gdb_conn *g, uint64_t addr, int set, double deadline, struct error *err)
{
	char cmd[64], reply[GDB_PACKET_MAX];

	/* kind 1: an x86 breakpoint's length, as GDB itself sends it. */
	snprintf(cmd, sizeof(cmd), "%c1,%llx,1", set ? 'Z' : 'z', (unsigned long long)addr);
	if (send_packet(g, cmd, err) < 0 || read_packet(g, reply, sizeof(reply), deadline, err) < 0)
		return -1;
	if (strcmp(reply, "OK") != 0)
		return fail_with(err, "gdbstub: '%s' answered '%s'%s", cmd, reply,
				 reply[0] ? "" : " (hardware breakpoints not supported)");
	return 0;
}

int gdb_continue(struct gdb_conn *g, double *resumed, double deadline, struct error *err)
{
	char reply[GDB_PACKET_MAX];

	if (send_packet(g, "c", err) < 0)
		return -1;
	*resumed = bench_now();
	for (;;) {
		if (read_packet(g, reply, sizeof(reply), deadline, err) < 0)
			return -1;
		if (reply[0] == 'T' || reply[0] == 'S')
			return 0;
		if (reply[0] == 'W' || reply[0] == 'X')
			return fail_with(err, "gdbstub: the guest ended ('%s') before the breakpoint",
					 reply);
		/* 'O' console output and the like: not a stop, keep waiting. */
	}
}

/* "qRcmd,HEX": a monitor command, its output coming back as 'O' packets
 * of hex text, then "OK" (the protocol's "General Query Packets"). */
#define INFO_REPLAY "info replay"
#define ICOUNT_KEY "instruction count = "

static int unhex(int c)
{
	return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
	       c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
}

int gdb_icount(struct gdb_conn *g, uint64_t *count, double deadline, struct error *err)
{
	char cmd[64] = "qRcmd,", reply[GDB_PACKET_MAX], text[GDB_PACKET_MAX] = "";
	size_t n = 0;

	for (const char *p = INFO_REPLAY; *p; p++)
		snprintf(cmd + strlen(cmd), sizeof(cmd) - strlen(cmd), "%02x", (unsigned char)*p);
	if (send_packet(g, cmd, err) < 0)
		return -1;
	for (;;) {
		if (read_packet(g, reply, sizeof(reply), deadline, err) < 0)
			return -1;
		if (strcmp(reply, "OK") == 0)
			break;
		if (reply[0] != 'O' || reply[1] == 'K')
			return fail_with(err, "gdbstub: 'monitor " INFO_REPLAY "' answered '%.40s'", reply);
		for (const char *p = reply + 1; p[0] && p[1] && n + 1 < sizeof(text); p += 2) {
			int hi = unhex(p[0]), lo = unhex(p[1]);
			if (hi < 0 || lo < 0)
				return fail_with(err, "gdbstub: monitor output is not hex: '%.40s'", reply);
			text[n++] = (char)(hi << 4 | lo);
		}
		text[n] = '\0';
	}
	/* "Recording execution 'FILE': instruction count = N" (QEMU's
	 * hmp_info_replay); without rr, "Record/replay is not active". */
	const char *p = strstr(text, ICOUNT_KEY);
	char *end;
	if (!p)
		return fail_with(err, "QEMU's 'info replay' gave no instruction count: '%.*s'",
				 (int)strcspn(text, "\n"), text);
	errno = 0;
	unsigned long long v = strtoull(p + strlen(ICOUNT_KEY), &end, 10);
	if (errno || end == p + strlen(ICOUNT_KEY))
		return fail_with(err, "QEMU's 'info replay': bad count '%.40s'", p);
	*count = v;
	return 0;
}
