package dev.ordinal.lab.devstack.internal;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.Socket;
import java.net.UnknownHostException;

/** Probes of the loopback ports our servers listen on. */
public final class Ports {
  private Ports() {}

  /** Whether any address of {@code localhost} accepts a TCP connection on {@code port}. */
  public static boolean accepting(int port) {
    InetAddress[] addresses;
    try {
      addresses = InetAddress.getAllByName("localhost");
    } catch (UnknownHostException e) {
      addresses = new InetAddress[] {InetAddress.getLoopbackAddress()};
    }
    for (InetAddress address : addresses) {
      try (Socket s = new Socket()) {
        s.connect(new InetSocketAddress(address, port), 1000);
        return true;
      } catch (IOException refused) {
        // not on this address
      }
    }
    return false;
  }
}
