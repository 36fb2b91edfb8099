/*
 * shm_pingpong: the physical limit of a call between two processes on this machine, for the bench's
 * shared-memory rows. Two processes share one memfd page (MAP_SHARED), each pinned to its own CPU, and
 * ping-pong a payload through it, both spinning: the client writes the payload and a sequence number
 * (release), the server waits for the number (acquire), copies the payload into the answer slot and
 * publishes the number back. No syscall per round trip.
 *
 *   shm_pingpong [-n ROUND_TRIPS] [-l PAYLOAD_BYTES] [-c CLIENT_CPU] [-s SERVER_CPU]
 *
 * Prints one line: round_trips=N payload=L seconds=S calls_per_s=X ns_per_call=Y
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define SLOT 4096

struct page {
    _Alignas(64) _Atomic uint64_t request_seq;
    _Alignas(64) _Atomic uint64_t answer_seq;
    _Alignas(64) unsigned char request[SLOT];
    _Alignas(64) unsigned char answer[SLOT];
};

static void pin(int cpu) {
    if (cpu < 0) return;
    cpu_set_t set;
    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    if (sched_setaffinity(0, sizeof set, &set) != 0) {
        fprintf(stderr, "shm_pingpong: sched_setaffinity(CPU %d): %s\n", cpu, strerror(errno));
        exit(2);
    }
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec + t.tv_nsec / 1e9;
}

static long number(const char *opt, const char *v, long min, long max) {
    char *end;
    errno = 0;
    long n = strtol(v, &end, 10);
    if (errno || *end || n < min || n > max) {
        fprintf(stderr, "shm_pingpong: %s %s: expected %ld..%ld\n", opt, v, min, max);
        exit(2);
    }
    return n;
}

int main(int argc, char **argv) {
    long rounds = 1000000, len = 32, client_cpu = 1, server_cpu = 0;
    int o;
    while ((o = getopt(argc, argv, "n:l:c:s:")) != -1) {
        switch (o) {
        case 'n': rounds = number("-n", optarg, 1, 1000000000L); break;
        case 'l': len = number("-l", optarg, 0, SLOT); break;
        case 'c': client_cpu = number("-c", optarg, -1, 1023); break;
        case 's': server_cpu = number("-s", optarg, -1, 1023); break;
        default:
            fprintf(stderr, "usage: shm_pingpong [-n ROUND_TRIPS] [-l PAYLOAD_BYTES] [-c CLIENT_CPU] [-s SERVER_CPU]\n");
            return 2;
        }
    }
    int fd = memfd_create("shm_pingpong", MFD_CLOEXEC);
    if (fd < 0 || ftruncate(fd, sizeof(struct page)) != 0) {
        fprintf(stderr, "shm_pingpong: memfd: %s\n", strerror(errno));
        return 1;
    }
    struct page *p = mmap(NULL, sizeof *p, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
    if (p == MAP_FAILED) {
        fprintf(stderr, "shm_pingpong: mmap: %s\n", strerror(errno));
        return 1;
    }
    close(fd);
    pid_t server = fork();
    if (server < 0) {
        fprintf(stderr, "shm_pingpong: fork: %s\n", strerror(errno));
        return 1;
    }
    if (server == 0) {
        pin(server_cpu);
        for (uint64_t seq = 1; seq <= (uint64_t) rounds + 1000; seq++) {
            while (atomic_load_explicit(&p->request_seq, memory_order_acquire) != seq) __builtin_ia32_pause();
            memcpy(p->answer, p->request, len);
            atomic_store_explicit(&p->answer_seq, seq, memory_order_release);
        }
        _exit(0);
    }
    pin(client_cpu);
    unsigned char payload[SLOT];
    for (long i = 0; i < len; i++) payload[i] = (unsigned char) (i * 7);
    double start = 0;
    for (uint64_t seq = 1; seq <= (uint64_t) rounds + 1000; seq++) {
        if (seq == 1001) start = now(); /* 1000 untimed warm-up round trips */
        memcpy(p->request, payload, len);
        atomic_store_explicit(&p->request_seq, seq, memory_order_release);
        while (atomic_load_explicit(&p->answer_seq, memory_order_acquire) != seq) __builtin_ia32_pause();
        if (len > 0 && p->answer[len - 1] != payload[len - 1]) {
            fprintf(stderr, "shm_pingpong: answer %llu differs\n", (unsigned long long) seq);
            return 1;
        }
    }
    double s = now() - start;
    int status;
    waitpid(server, &status, 0);
    printf("round_trips=%ld payload=%ld seconds=%.3f calls_per_s=%.0f ns_per_call=%.1f\n", rounds, len, s, rounds / s, s * 1e9 / rounds);
    return 0;
}
