package dev.ordinal.monitor.internal;

/** The invoice a series number was first issued for, and whether its duplicate was reported. */
public record NumberState(String invoiceId, boolean duplicateAlerted) {}
