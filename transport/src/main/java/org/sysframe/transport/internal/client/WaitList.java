package org.sysframe.transport.internal.client;

import java.util.concurrent.locks.LockSupport;

/**
 * The callers parked while another thread does the I/O, oldest first: the role goes to the head when
 * its holder leaves; the {@link DeadlineSweep} unparks those past their deadline. Under the
 * {@link Conduit}'s lock.
 */
final class WaitList {
    private Call head, tail;
    private int passengers;

    Call head() { return head; }

    /** Parked callers that do no I/O themselves (see {@link Call#passenger}). */
    int passengers() { return passengers; }

    /** The oldest parked caller that may take the I/O role, or null. */
    Call firstDriver() {
        if (passengers == 0) return head;
        for (Call w = head; w != null; w = w.next) if (!w.passenger) return w;
        return null;
    }

    void add(Call c) {
        c.listed = true;
        if (c.passenger) passengers++;
        c.next = null;
        c.prev = tail;
        if (tail == null) head = c;
        else tail.next = c;
        tail = c;
    }

    /** Takes c out of the list, if it is in it. */
    void remove(Call c) {
        if (!c.listed) return;
        c.listed = false;
        if (c.passenger) passengers--;
        if (c.prev == null) head = c.next;
        else c.prev.next = c.next;
        if (c.next == null) tail = c.prev;
        else c.next.prev = c.prev;
        c.prev = c.next = null;
    }

    int size() {
        int n = 0;
        for (Call w = head; w != null; w = w.next) n++;
        return n;
    }

    /** Unparks every caller past its deadline; the earliest deadline still ahead, or 0. */
    long sweep(long now) {
        long next = 0;
        for (Call w = head; w != null; w = w.next) {
            if (w.deadline == 0) continue;
            if (now - w.deadline >= 0) LockSupport.unpark(w.waiter);
            else if (next == 0 || w.deadline - next < 0) next = w.deadline;
        }
        return next;
    }
}
