// SPDX-License-Identifier: GPL-2.0
/*
 * rx-noack: make one unauthenticated CB.Probe call to a cache manager and
 * never acknowledge its reply, as a peer that has gone quiet would.  Once
 * the reply has arrived it prints "reply" and keeps the socket open (so no
 * ICMP "port unreachable" ends the call early) for <hold s> seconds,
 * answering nothing.  The call is then left on the cache manager's side
 * waiting for the final ACK.
 *
 *	rx-noack <IPv4 address> <port> <hold s>
 *
 * Exit status 0 once it has held the call, 1 if no reply came within 10 s.
 */

#include <arpa/inet.h>
#include <errno.h>
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* The Rx wire header (all fields big-endian), then the request's opcode. */
struct rx_packet {
	uint32_t epoch;
	uint32_t cid;
	uint32_t call_number;
	uint32_t seq;
	uint32_t serial;
	uint8_t type;
	uint8_t flags;
	uint8_t user_status;
	uint8_t security_index;
	uint16_t cksum;
	uint16_t service_id;
	uint32_t opcode;
} __attribute__((packed));

#define RX_PACKET_TYPE_DATA	1
#define RX_CLIENT_INITIATED	0x01
#define RX_LAST_PACKET		0x04
#define CM_SERVICE		1
#define CBPROBE			206

int main(int argc, char **argv)
{
	struct rx_packet req = {
		.cid		= htonl(0x4000),
		.call_number	= htonl(1),
		.seq		= htonl(1),
		.serial		= htonl(1),
		.type		= RX_PACKET_TYPE_DATA,
		.flags		= RX_CLIENT_INITIATED | RX_LAST_PACKET,
		.service_id	= htons(CM_SERVICE),
		.opcode		= htonl(CBPROBE),
	};
	struct sockaddr_in sin = { .sin_family = AF_INET };
	unsigned char buf[2048];
	struct rx_packet *rep = (struct rx_packet *)buf;
	struct pollfd pfd;
	time_t deadline;
	int fd, hold;
	ssize_t n;

	if (argc != 4 || inet_pton(AF_INET, argv[1], &sin.sin_addr) != 1) {
		fprintf(stderr, "usage: %s <IPv4 address> <port> <hold s>\n", argv[0]);
		return 2;
	}
	sin.sin_port = htons(atoi(argv[2]));
	hold = atoi(argv[3]);
	req.epoch = htonl((uint32_t)time(NULL));

	fd = socket(AF_INET, SOCK_DGRAM, 0);
	if (fd < 0 || connect(fd, (struct sockaddr *)&sin, sizeof(sin)) < 0 ||
	    send(fd, &req, sizeof(req), 0) != sizeof(req)) {
		fprintf(stderr, "rx-noack: %s: %s\n", argv[1], strerror(errno));
		return 1;
	}

	/* Wait for the reply: a DATA packet of our call from the server side. */
	deadline = time(NULL) + 10;
	pfd.fd = fd;
	pfd.events = POLLIN;
	for (;;) {
		if (time(NULL) >= deadline || poll(&pfd, 1, 1000) < 0) {
			fprintf(stderr, "rx-noack: no reply within 10 s\n");
			return 1;
		}
		if (!(pfd.revents & POLLIN))
			continue;
		n = recv(fd, buf, sizeof(buf), 0);
		if (n < 0) {
			fprintf(stderr, "rx-noack: recv: %s\n", strerror(errno));
			return 1;
		}
		if (n >= 28 && rep->type == RX_PACKET_TYPE_DATA &&
		    rep->call_number == req.call_number &&
		    !(rep->flags & RX_CLIENT_INITIATED))
			break;
	}
	printf("reply\n");
	fflush(stdout);

	/* Hold the call: read and drop whatever comes, acknowledge nothing. */
	deadline = time(NULL) + hold;
	while (time(NULL) < deadline) {
		if (poll(&pfd, 1, 1000) > 0 && (pfd.revents & POLLIN))
			recv(fd, buf, sizeof(buf), 0);
	}
	return 0;
}
