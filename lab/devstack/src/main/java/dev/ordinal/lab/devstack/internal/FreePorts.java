package dev.ordinal.lab.devstack.internal;

import dev.ordinal.lab.devstack.StackException;
import java.io.IOException;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.util.ArrayList;
import java.util.List;

/**
 * Picks several free loopback ports at once. Every socket stays open until all are chosen, so the
 * same port is never handed out twice (a broker refuses two listeners on one port).
 */
public final class FreePorts {
  private FreePorts() {}

  public static int[] pick(int count) {
    List<ServerSocket> sockets = new ArrayList<>();
    try {
      int[] ports = new int[count];
      for (int i = 0; i < count; i++) {
        ServerSocket s = new ServerSocket(0, 1, InetAddress.getLoopbackAddress());
        s.setReuseAddress(true);
        sockets.add(s);
        ports[i] = s.getLocalPort();
      }
      return ports;
    } catch (IOException e) {
      throw new StackException("No free loopback port could be found: " + e.getMessage(), e);
    } finally {
      for (ServerSocket s : sockets) {
        try {
          s.close();
        } catch (IOException ignored) {
          // closing a probe socket cannot lose anything
        }
      }
    }
  }
}
