package org.sysframe.transport.support;

/** A request as a raw server read it off the wire. */
public record RawRequest(int id, int type, byte[] payload) {}
