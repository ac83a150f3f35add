import DevStack
import Foundation
import SharedTestSupport
import Testing

/// The pieces the monitoring tests build on: the time-compressed copy of the shipped rule file
/// (still valid for promtool, expressions unchanged but for durations) and the metric names read
/// from the rules and the dashboard.
@Suite struct MonitoringRulesTests {
    static let rules = ScriptRunner.repositoryRoot.appendingPathComponent("deploy/prometheus/alerts.yml")
    static let dashboard = ScriptRunner.repositoryRoot.appendingPathComponent("deploy/grafana/sightscreen.json")

    @Test func durationsAreDividedAndNothingElseChanges() {
        let scale = RuleTimeScale(factor: 30)
        let text = """
              - alert: A
                expr: sum(rate(x_total{a="[5m]"}[10m])) > 0 and (time() - y) > 120 and z[1h:1m] offset 5m
                for: 15m
              - alert: B
                expr: up == 0
                for: 30s
            """
        let scaled = scale.apply(to: text)
        #expect(scaled.contains("sum(rate(x_total{a=\"[5m]\"}[20s])) > 0 and (time() - y) > 120 and z[120s:2s] offset 5m"),
                "range selectors scaled; a label value, a number and an offset not: \(scaled)")
        #expect(scaled.contains("    for: 30s\n") && scaled.hasSuffix("    for: 1s"), "for: 15m → 30s, 30s → at least 1s: \(scaled)")
        #expect(RuleTimeScale(factor: 1).apply(to: text) == text)
    }

    /// The shipped file, compressed 30×, is still a valid rule file (promtool, as scripts/check-alerts runs it).
    @Test func theCompressedShippedRulesStillParse() async throws {
        let text = try String(contentsOf: Self.rules, encoding: .utf8)
        let scaled = RuleTimeScale(factor: 30).apply(to: text)
        #expect(scaled != text)
        #expect(PromQLMetricNames.ruleExpressions(scaled).count == PromQLMetricNames.ruleExpressions(text).count)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("scaled-alerts-\(UUID().uuidString).yml")
        try Data(scaled.utf8).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        guard FileManager.default.isExecutableFile(atPath: "/usr/bin/promtool") else {
            Issue.record("promtool is missing: run scripts/setup (installs Debian's prometheus)")
            return
        }
        let (status, output) = try await ChildProcess.run(URL(fileURLWithPath: "/usr/bin/promtool"), ["check", "rules", file.path])
        #expect(status == 0, "\(String(decoding: output, as: UTF8.self))")
    }

    @Test func metricNamesOfAnExpression() {
        #expect(PromQLMetricNames.names(in: #"histogram_quantile(0.99, sum by (le, priority) (rate(push_freshness_seconds_bucket{priority="10"}[5m]))) > 5"#)
                == ["push_freshness_seconds_bucket"])
        #expect(PromQLMetricNames.names(in: "(time() - max by (job, group) (kafka_consumer_last_commit_timestamp_seconds)) > 120 and on (group) (sum by (group) (kafka_group_lag) > 0)")
                == ["kafka_consumer_last_commit_timestamp_seconds", "kafka_group_lag"])
        #expect(PromQLMetricNames.names(in: "(sum(poller_leader) or vector(0)) < 1") == ["poller_leader"])
        #expect(PromQLMetricNames.names(in: "sightscreen:push_freshness_slo_errors:ratio_rate1h / 0.01 > 14.4 unless up == 1e3")
                == ["sightscreen:push_freshness_slo_errors:ratio_rate1h", "up"])
    }

    /// Every rule and every dashboard panel reads at least one metric, and the dashboard's panels are found.
    @Test func theShippedRulesAndDashboardNameMetrics() throws {
        let rules = try String(contentsOf: Self.rules, encoding: .utf8)
        for expression in PromQLMetricNames.ruleExpressions(rules) {
            #expect(!PromQLMetricNames.names(in: expression).isEmpty, "\(expression)")
        }
        #expect(PromQLMetricNames.recordedNames(rules).contains("sightscreen:push_freshness_slo_errors:ratio_rate5m"))
        let panels = try PromQLMetricNames.dashboardExpressions(try Data(contentsOf: Self.dashboard))
        #expect(panels.count > 40)
        for (panel, expression) in panels {
            #expect(!PromQLMetricNames.names(in: expression).isEmpty, "\(panel): \(expression)")
        }
    }
}
