package dev.ordinal.runtime;

import java.util.List;

/**
 * A service's health: {@code /health/ready} answers 200 with it when {@link #ready()}, 503
 * otherwise.
 *
 * @param service the service's name
 * @param phase where the service is in its life
 * @param loops every background loop
 * @param servers every server it needs
 */
public record Health(
    String service, Phase phase, List<LoopHealth> loops, List<ServerHealth> servers) {

  /** A service's life: starting (checks, migrations, topics), running, stopping. */
  public enum Phase {
    STARTING,
    RUNNING,
    STOPPING
  }

  public Health {
    loops = List.copyOf(loops);
    servers = List.copyOf(servers);
  }

  /** Would do its work now: started, every loop running, every server answering. */
  public boolean ready() {
    return phase == Phase.RUNNING
        && loops.stream().allMatch(l -> l.state() == LoopState.RUNNING)
        && servers.stream().allMatch(ServerHealth::up);
  }

  /**
   * Not stuck: no loop is {@link LoopState#STALLED}. {@code /health/live} answers 200 while live,
   * 503 otherwise, so an orchestrator restarts a process whose loop hangs in a call.
   */
  public boolean live() {
    return loops.stream().noneMatch(l -> l.state() == LoopState.STALLED);
  }

  /** "UP" when ready, else "DOWN". */
  public String status() {
    return ready() ? "UP" : "DOWN";
  }
}
