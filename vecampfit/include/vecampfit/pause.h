/*
 * vecampfit spin waits.
 *
 * VECAMPFIT_PAUSE() is the instruction a spin-wait loop runs once per turn,
 * the same as the OpenMP runtime's (GCC's libgomp: `pause` on x86, a
 * compiler barrier elsewhere): it lets the other hardware thread of a core
 * run and keeps the loop from flooding the memory system.
 *
 * vecampfit_spin_seconds(n) is the time, in seconds, of n turns of such a
 * loop (a relaxed atomic load and a pause), as libgomp's spin wait runs
 * them: vecampfit._openmp converts a time into libgomp's GOMP_SPINCOUNT
 * with it, before the runtime is loaded.
 */
#ifndef VECAMPFIT_PAUSE_H
#define VECAMPFIT_PAUSE_H

#include <time.h>

#if defined(__x86_64__) || defined(__i386__)
#include <immintrin.h>
#define VECAMPFIT_PAUSE() _mm_pause()
#else
#define VECAMPFIT_PAUSE() __asm__ __volatile__("" ::: "memory")
#endif

static double vecampfit_spin_seconds(long n)
{
    static int never_set = 0;   /* read, never written: the loop runs n turns */
    struct timespec t0, t1;
    long i;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (i = 0; i < n; i++) {
        if (__atomic_load_n(&never_set, __ATOMIC_RELAXED) != 0)
            break;
        VECAMPFIT_PAUSE();
    }
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double) (t1.tv_sec - t0.tv_sec) + 1e-9 * (double) (t1.tv_nsec - t0.tv_nsec);
}

#endif
