package dev.ordinal.testkit;

import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.spi.ILoggingEvent;
import ch.qos.logback.classic.spi.IThrowableProxy;
import ch.qos.logback.core.read.ListAppender;
import java.util.List;
import org.slf4j.LoggerFactory;

/**
 * Every event logged in this JVM while open (an appender on logback's root logger), at the levels
 * the test's logging configuration lets through: for tests of what a run logged, such as that no
 * secret was.
 */
public final class LogCapture implements AutoCloseable {
  private final Logger root = (Logger) LoggerFactory.getLogger(Logger.ROOT_LOGGER_NAME);
  private final ListAppender<ILoggingEvent> appender = new ListAppender<>();

  public LogCapture() {
    appender.start();
    root.addAppender(appender);
  }

  /** The events logged so far. */
  public List<ILoggingEvent> events() {
    synchronized (appender) {
      return List.copyOf(appender.list);
    }
  }

  /** Each event's message, then the messages of its exception and the exception's causes. */
  public List<String> texts() {
    return events().stream().map(LogCapture::text).toList();
  }

  private static String text(ILoggingEvent e) {
    StringBuilder b = new StringBuilder(e.getFormattedMessage());
    for (IThrowableProxy t = e.getThrowableProxy(); t != null; t = t.getCause()) {
      b.append('\n').append(t.getMessage());
    }
    return b.toString();
  }

  @Override
  public void close() {
    root.detachAppender(appender);
    appender.stop();
  }
}
