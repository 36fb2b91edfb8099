/**
 * Internal to the transport, not exported: the io_uring server driver (UringDriver; UringSocket with its
 * parts UringInput and UringOutput, their ReceiveState and SendState; UringRing; UserData) and the
 * io_uring client link. Depends on internal.server and internal.io, never on internal.epoll.
 */
package org.sysframe.transport.internal.uring;
