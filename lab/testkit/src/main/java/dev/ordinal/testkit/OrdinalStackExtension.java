package dev.ordinal.testkit;

import dev.ordinal.lab.devstack.Stack;
import dev.ordinal.lab.devstack.StackConfig;
import java.nio.file.Path;
import java.util.Locale;
import java.util.concurrent.ThreadLocalRandom;
import org.junit.jupiter.api.extension.BeforeAllCallback;
import org.junit.jupiter.api.extension.ExtensionContext;
import org.junit.jupiter.api.extension.ExtensionContext.Namespace;
import org.junit.jupiter.api.extension.ParameterContext;
import org.junit.jupiter.api.extension.ParameterResolutionException;
import org.junit.jupiter.api.extension.ParameterResolver;

/**
 * Shares one stack (PostgreSQL + Kafka) per test JVM and gives each test class its own {@link
 * TestNamespace}: a database schema, a topic prefix and consumer-group names nobody else uses.
 *
 * <p>The stack is the embedded one in {@code target/ordinal-stack} unless the {@code ORDINAL_*}
 * variables name external servers or Testcontainers (see {@link StackConfig}). It is stopped when
 * the JVM's test run ends.
 *
 * <pre>{@code
 * @ExtendWith(OrdinalStackExtension.class)
 * class SomethingIT {
 *   @Test void works(TestNamespace ns) { ... }
 * }
 * }</pre>
 */
public final class OrdinalStackExtension implements BeforeAllCallback, ParameterResolver {
  private static final Namespace NS = Namespace.create(OrdinalStackExtension.class);
  private static final String STACK_KEY = "stack";
  private static final String NAMESPACE_KEY = "namespace";

  @Override
  public void beforeAll(ExtensionContext context) {
    namespace(context);
  }

  @Override
  public boolean supportsParameter(ParameterContext param, ExtensionContext context) {
    Class<?> type = param.getParameter().getType();
    return type == TestNamespace.class || type == Stack.class;
  }

  @Override
  public Object resolveParameter(ParameterContext param, ExtensionContext context)
      throws ParameterResolutionException {
    TestNamespace ns = namespace(context);
    return param.getParameter().getType() == Stack.class ? ns.stack() : ns;
  }

  /** The shared stack of this JVM, started on first use. */
  public static Stack stack(ExtensionContext context) {
    return context
        .getRoot()
        .getStore(NS)
        .getOrComputeIfAbsent(STACK_KEY, k -> new SharedStack(startStack()), SharedStack.class)
        .stack();
  }

  private static TestNamespace namespace(ExtensionContext context) {
    ExtensionContext classContext = classContext(context);
    return classContext
        .getStore(NS)
        .getOrComputeIfAbsent(
            NAMESPACE_KEY,
            k -> TestNamespace.create(stack(context), uniqueName(classContext)),
            TestNamespace.class);
  }

  private static ExtensionContext classContext(ExtensionContext context) {
    return context.getTestMethod().isPresent() ? context.getParent().orElseThrow() : context;
  }

  private static String uniqueName(ExtensionContext context) {
    String simple =
        context.getTestClass().map(Class::getSimpleName).orElse("test").toLowerCase(Locale.ROOT);
    simple = simple.replaceAll("[^a-z0-9]", "");
    if (simple.length() > 24) {
      simple = simple.substring(0, 24);
    }
    return "t_"
        + simple
        + "_"
        + Integer.toString(ThreadLocalRandom.current().nextInt(46656, 1679615), 36);
  }

  private static Stack startStack() {
    StackConfig config =
        StackConfig.fromEnvironment(System.getenv())
            .withDataDir(Path.of("target", "ordinal-stack"));
    return Stack.start(config);
  }

  private record SharedStack(Stack stack) implements AutoCloseable {
    @Override
    public void close() {
      stack.close();
    }
  }
}
