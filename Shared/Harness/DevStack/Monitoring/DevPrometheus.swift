import Foundation

/// A real Prometheus (Debian's package) beside the dev stack: it scrapes the five services under
/// their production job names and evaluates the shipped rule file, time-compressed by `timeScale`
/// for tests (`RuleTimeScale`; 1 for the demo: the rules as shipped).
public struct DevPrometheus: Sendable, Equatable {
    /// The `prometheus` executable.
    public var executable: URL
    /// The rule file it evaluates (deploy/prometheus/alerts.yml).
    public var rulesFile: URL
    /// `for:` and range selectors are divided by this (1: as shipped).
    public var timeScale: Int
    /// Scrape and rule evaluation interval.
    public var intervalSeconds: Int

    public init(executable: URL, rulesFile: URL, timeScale: Int = 1, intervalSeconds: Int = 1) {
        self.executable = executable
        self.rulesFile = rulesFile
        self.timeScale = timeScale
        self.intervalSeconds = intervalSeconds
    }

    /// `PROMETHEUS_BIN`, else Debian's /usr/bin/prometheus; the rules from `root`/deploy/prometheus.
    /// - Throws: `DevStackError.invalidOption` naming what is missing and how to get it.
    public static func locate(root: URL, environment: [String: String], timeScale: Int = 1,
                              intervalSeconds: Int = 1) throws(DevStackError) -> DevPrometheus {
        let executable = URL(fileURLWithPath: environment["PROMETHEUS_BIN"] ?? "/usr/bin/prometheus")
        guard FileManager.default.isExecutableFile(atPath: executable.path) else {
            throw .invalidOption("no Prometheus at \(executable.path): run scripts/setup (installs Debian's prometheus) or set PROMETHEUS_BIN")
        }
        let rules = root.appendingPathComponent("deploy/prometheus/alerts.yml")
        guard FileManager.default.fileExists(atPath: rules.path) else {
            throw .invalidOption("no rule file at \(rules.path) (SIGHTSCREEN_ROOT should be the checkout)")
        }
        return DevPrometheus(executable: executable, rulesFile: rules, timeScale: timeScale, intervalSeconds: intervalSeconds)
    }

    /// prometheus.yml for a stack on `ports`: the production job names, targets on 127.0.0.1,
    /// the rule file at `rulesPath`.
    func configuration(ports: DevPorts, rulesPath: String) -> String {
        let targets = [("api", ports.apiMetrics), ("poller", ports.poller), ("detector", ports.detector),
                       ("la-coordinator", ports.coordinator), ("apns-sender", ports.sender)]
        var lines = [
            "# Written by the dev stack (DevPrometheus): the services of this stack under their production job names.",
            "global:", "  scrape_interval: \(intervalSeconds)s", "  evaluation_interval: \(intervalSeconds)s",
            "rule_files:", "  - \(rulesPath)", "scrape_configs:",
        ]
        for (job, port) in targets {
            lines += ["  - job_name: \(job)", "    static_configs:", "      - targets: [\"127.0.0.1:\(port)\"]"]
        }
        return lines.joined(separator: "\n") + "\n"
    }
}
