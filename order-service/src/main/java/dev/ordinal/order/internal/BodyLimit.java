package dev.ordinal.order.internal;

import jakarta.servlet.DispatcherType;
import jakarta.servlet.Filter;
import jakarta.servlet.FilterChain;
import jakarta.servlet.ServletException;
import jakarta.servlet.ServletInputStream;
import jakarta.servlet.ServletRequest;
import jakarta.servlet.ServletResponse;
import jakarta.servlet.http.HttpServletRequest;
import jakarta.servlet.http.HttpServletRequestWrapper;
import jakarta.servlet.http.HttpServletResponse;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.EnumSet;
import org.eclipse.jetty.ee10.servlet.FilterHolder;
import org.eclipse.jetty.ee10.servlet.ServletContextHandler;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Refuses a request body over the limit with 413 and a problem body that the client can read.
 *
 * <p>A {@code Content-Length} over the limit is answered at once, before any of the body is read,
 * with {@code Connection: close}. A body without a length (chunked) is refused by Javalin's {@code
 * maxRequestSize} once it has read past the limit.
 *
 * <p>Either way the answer leaves while the client is still sending. Jetty, finding request content
 * the application did not read, closes the connection; the client's further writes then meet a TCP
 * reset, which fails the upload and can discard the 413 from the client's receive buffer before it
 * is read. So after the answer has been sent, the rest of the body is read and thrown away (the
 * staged close of RFC 9112, section 9.6): at most {@link #MAX_DRAIN_BYTES} and {@link
 * #MAX_DRAIN_TIME}, after which Jetty closes the connection as before. A body declared larger than
 * that is not read at all; a client that announced {@code Expect: 100-continue} and was never asked
 * for its body is not asked for it now.
 */
public final class BodyLimit implements Filter {
  /** The most of a refused or unread body read and thrown away so the client sees the answer. */
  public static final long MAX_DRAIN_BYTES = 32L * 1024 * 1024;

  /** How long a refused or unread body is read and thrown away at most. */
  public static final Duration MAX_DRAIN_TIME = Duration.ofSeconds(10);

  private static final Logger log = LoggerFactory.getLogger(BodyLimit.class);

  private final long maxBodyBytes;
  private final byte[] refusal;

  private BodyLimit(long maxBodyBytes) {
    this.maxBodyBytes = maxBodyBytes;
    this.refusal = Problem.tooLarge(maxBodyBytes).toJson().getBytes(StandardCharsets.UTF_8);
  }

  /** Puts the filter in front of every request that {@code handler} serves. */
  public static void install(ServletContextHandler handler, long maxBodyBytes) {
    handler.addFilter(
        new FilterHolder(new BodyLimit(maxBodyBytes)), "/*", EnumSet.of(DispatcherType.REQUEST));
  }

  @Override
  public void doFilter(ServletRequest req, ServletResponse res, FilterChain chain)
      throws IOException, ServletException {
    HttpServletRequest request = (HttpServletRequest) req;
    HttpServletResponse response = (HttpServletResponse) res;
    long declared = request.getContentLengthLong();
    if (declared > maxBodyBytes) {
      response.setStatus(413);
      response.setContentType(Problem.CONTENT_TYPE);
      response.setHeader("Connection", "close");
      response.setContentLength(refusal.length);
      response.getOutputStream().write(refusal);
      response.getOutputStream().close();
      if (!expectsContinue(request)) {
        discardBody(request, declared);
      }
      return;
    }
    BodyTracking tracked = new BodyTracking(request);
    chain.doFilter(tracked, response);
    boolean hasBody = declared > 0 || request.getHeader("Transfer-Encoding") != null;
    if (hasBody && !request.isAsyncStarted() && (tracked.bodyOpened || !expectsContinue(request))) {
      finish(response);
      discardBody(request, declared);
    }
  }

  /** Sends the whole answer now, so the client has it while the rest of its body is read. */
  private static void finish(HttpServletResponse response) throws IOException {
    try {
      response.getOutputStream().close();
    } catch (IllegalStateException writerInUse) {
      response.getWriter().close();
    }
  }

  /**
   * Reads what is left of the body and throws it away, within the limits; returns early when the
   * client stops sending or the limits are reached (Jetty then closes the connection).
   */
  private static void discardBody(HttpServletRequest request, long declared) {
    if (declared > MAX_DRAIN_BYTES) {
      return;
    }
    long deadline = System.nanoTime() + MAX_DRAIN_TIME.toNanos();
    long discarded = 0;
    byte[] buffer = new byte[16 * 1024];
    try {
      ServletInputStream in = request.getInputStream();
      for (int n; (n = in.read(buffer)) != -1; ) {
        discarded += n;
        if (discarded > MAX_DRAIN_BYTES || System.nanoTime() - deadline > 0) {
          log.debug("Stopped discarding an unread request body after {} bytes", discarded);
          return;
        }
      }
    } catch (IOException | RuntimeException e) {
      log.debug("Client stopped sending an unread request body after {} bytes", discarded, e);
    }
  }

  private static boolean expectsContinue(HttpServletRequest request) {
    String expect = request.getHeader("Expect");
    return expect != null && expect.equalsIgnoreCase("100-continue");
  }

  /** Notes whether the application asked for the body (which sends a 100 Continue if expected). */
  private static final class BodyTracking extends HttpServletRequestWrapper {
    boolean bodyOpened;

    BodyTracking(HttpServletRequest request) {
      super(request);
    }

    @Override
    public ServletInputStream getInputStream() throws IOException {
      bodyOpened = true;
      return super.getInputStream();
    }

    @Override
    public java.io.BufferedReader getReader() throws IOException {
      bodyOpened = true;
      return super.getReader();
    }
  }
}
