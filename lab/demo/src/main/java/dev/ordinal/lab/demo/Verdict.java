package dev.ordinal.lab.demo;

import java.util.List;

/**
 * Whether one invariant held, and when it did not, why: one sentence naming what the evidence
 * showed (the first few offending orders, numbers or message ids, and how many there were).
 */
record Verdict(boolean held, String reason) {
  static final Verdict HELD = new Verdict(true, "");

  Verdict {
    if (held != reason.isEmpty()) {
      throw new IllegalArgumentException("a verdict has a reason exactly when it is broken");
    }
  }

  static Verdict broken(String reason) {
    return new Verdict(false, reason);
  }

  /** Held when there is no problem; else broken, the problems joined with "; ". */
  static Verdict of(List<String> problems) {
    return problems.isEmpty() ? HELD : broken(String.join("; ", problems));
  }
}
