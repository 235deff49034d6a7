/**
 * The external systems billing talks to, simulated as real HTTP servers for tests, the demo and
 * manual runs: {@link dev.ordinal.lab.sim.IntegratorSimulator} (the e-invoice integrator, keyed by
 * legal invoice number, with injected latency, failures, timeouts and accepted-then-dropped
 * responses) and {@link dev.ordinal.lab.sim.PaymentGatewaySimulator} (one charge per idempotency
 * key). {@link dev.ordinal.lab.sim.SimulatorMain} runs both. Everything else lives in {@code
 * internal}.
 */
package dev.ordinal.lab.sim;
