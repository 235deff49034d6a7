package dev.ordinal.lab.demo;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.yaml.snakeyaml.Yaml;

/**
 * The alert rules and the Grafana dashboard under {@code deploy/observability}, read as Prometheus
 * and Grafana read them: each rule checked for the fields Prometheus requires, each PromQL
 * expression's metrics and labels listed, to be found on the services' {@code /metrics}.
 */
final class ObservabilityFiles {
  static final Path DIR = Path.of("..", "..", "deploy", "observability");
  static final Pattern SELECTOR =
      Pattern.compile(
          "\\b((?:ordinal|jvm|process|kafka|hikaricp|http)_[a-zA-Z0-9_:]*)\\s*(\\{([^}]*)})?");
  static final Pattern MATCHER = Pattern.compile("([a-zA-Z_][a-zA-Z0-9_]*)\\s*(=~|!~|!=|=)");
  static final Pattern GROUPING = Pattern.compile("\\b(?:by|without)\\s*\\(([^)]*)\\)");
  static final Pattern DURATION = Pattern.compile("\\d+[smhdw]");

  private ObservabilityFiles() {}

  /** One PromQL expression, where it stands, and what it uses. */
  record Expression(String where, String expr, Map<String, Set<String>> labelsByMetric) {}

  /** The expressions of {@code alerts.yml}, each rule checked for Prometheus' required fields. */
  static List<Expression> alertRules() throws IOException {
    Map<String, Object> file = new Yaml().load(Files.readString(DIR.resolve("alerts.yml")));
    List<Expression> out = new ArrayList<>();
    for (Object g : (List<?>) file.get("groups")) {
      Map<?, ?> group = (Map<?, ?>) g;
      require(group.get("name") instanceof String, "a group without a name");
      for (Object r : (List<?>) group.get("rules")) {
        Map<?, ?> rule = (Map<?, ?>) r;
        String name = String.valueOf(rule.get("alert"));
        require(rule.get("alert") instanceof String, "a rule without alert: " + rule);
        require(rule.get("expr") instanceof String, name + " has no expr");
        Object forValue = rule.get("for");
        require(
            forValue == null || DURATION.matcher(forValue.toString()).matches(),
            name + ": for is not a duration: " + forValue);
        require(
            rule.get("annotations") instanceof Map<?, ?> a && a.get("summary") != null,
            name + " has no summary");
        out.add(parse("alert " + name, (String) rule.get("expr")));
      }
    }
    return out;
  }

  /** The expressions of the dashboard's panels. */
  static List<Expression> dashboard() throws IOException {
    JsonNode d = new ObjectMapper().readTree(DIR.resolve("grafana-dashboard.json").toFile());
    List<Expression> out = new ArrayList<>();
    for (JsonNode panel : d.path("panels")) {
      for (JsonNode target : panel.path("targets")) {
        out.add(parse("panel " + panel.path("title").asText(), target.path("expr").asText()));
      }
    }
    require(!out.isEmpty(), "a dashboard without queries");
    return out;
  }

  /** The metrics {@code expr} selects and the labels it uses of each (matchers and groupings). */
  static Expression parse(String where, String expr) {
    require(balanced(expr), where + ": unbalanced brackets in " + expr);
    Map<String, Set<String>> labels = new TreeMap<>();
    Matcher s = SELECTOR.matcher(expr);
    while (s.find()) {
      Set<String> used = labels.computeIfAbsent(s.group(1), k -> new TreeSet<>());
      if (s.group(3) != null) {
        Matcher m = MATCHER.matcher(s.group(3));
        while (m.find()) {
          used.add(m.group(1));
        }
      }
    }
    require(!labels.isEmpty(), where + ": no metric in " + expr);
    Matcher g = GROUPING.matcher(expr);
    while (g.find()) {
      for (String label : g.group(1).split(",")) {
        if (!label.isBlank() && !label.strip().equals("le")) {
          // a grouping label must be on the metrics it aggregates: checked on each of them
          labels.values().forEach(set -> set.add(label.strip()));
        }
      }
    }
    return new Expression(where, expr, labels);
  }

  /** Every series' label names by metric name, from Prometheus text. */
  static Map<String, Set<String>> exported(String prometheusText) {
    Map<String, Set<String>> out = new TreeMap<>();
    for (String line : prometheusText.lines().toList()) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      int brace = line.indexOf('{');
      int space = line.indexOf(' ');
      String name = line.substring(0, brace >= 0 && brace < space ? brace : space);
      Set<String> labels = out.computeIfAbsent(name, k -> new TreeSet<>());
      if (brace >= 0 && brace < space) {
        Matcher m = MATCHER.matcher(line.substring(brace, line.lastIndexOf('}')));
        while (m.find()) {
          labels.add(m.group(1));
        }
      }
    }
    return out;
  }

  private static boolean balanced(String s) {
    int depth = 0;
    for (char c : s.toCharArray()) {
      depth += c == '(' || c == '{' || c == '[' ? 1 : c == ')' || c == '}' || c == ']' ? -1 : 0;
      if (depth < 0) {
        return false;
      }
    }
    return depth == 0;
  }

  private static void require(boolean condition, String problem) {
    if (!condition) {
      throw new AssertionError(problem);
    }
  }
}
