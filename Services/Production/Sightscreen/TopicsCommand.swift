import CommandLineSupport
import Contracts
import Foundation
import Kafka
import Runtime

/// `sightscreen topics apply|create [--config FILE] [--dry-run] [--allow-unreplicated]` and `topics list`: makes the
/// cluster's topics match the topic config (``KafkaTopicReconciliation``: creates, adds partitions, sets configs,
/// reports drift and replication problems), or lists them. `create` is `apply` (its older name).
struct TopicsCommand {
    let console: Console
    let environment: EnvironmentReader
    let admin: () throws -> KafkaAdmin

    func apply(_ options: ArraySlice<String>) async throws {
        var configPath: String?
        var dryRun = false
        var allowUnreplicated = false
        var rest = options[...]
        while let option = rest.popFirst() {
            switch option {
            case "--config":
                guard let value = rest.popFirst() else { throw UsageError(message: "--config needs a file") }
                configPath = value
            case "--dry-run": dryRun = true
            case "--allow-unreplicated": allowUnreplicated = true
            default: throw UsageError(message: "topics apply: unknown option \(option)")
            }
        }
        let path = configPath ?? Self.configPath(environment)
        guard let text = try? String(contentsOfFile: path, encoding: .utf8) else {
            throw UsageError(message: "cannot read the topic config \(path) (set TOPICS_CONFIG or --config)")
        }
        let wanted = try TopicPlan.parse(text).map(\.spec)
        let admin = try admin()
        let cluster = try await admin.clusterMetadata()
        let existing = wanted.map(\.name).filter { cluster.topic($0) != nil }
        var overrides: [String: [String: String]]?
        do {
            overrides = try await admin.topicOverrides(existing)
        } catch {
            console.line("warning: could not read topic configs (\(error)); configs not checked")
        }
        let plan = KafkaTopicReconciliation(wanted: wanted, cluster: cluster, overrides: overrides ?? (existing.isEmpty ? [:] : nil),
                                            allowUnreplicated: allowUnreplicated)
        console.line("cluster: \(cluster.brokers.count) broker(s): " + cluster.brokers.map { "\($0.id)@\($0.host):\($0.port)" }.joined(separator: ", "))
        for finding in plan.findings { console.line(finding.description) }
        if !plan.errors.isEmpty {
            throw UsageError(message: "topics apply: \(plan.errors.count) error(s) above; nothing was changed")
        }
        if plan.changes.isEmpty { console.line("topics: nothing to change") }
        for change in plan.changes {
            if dryRun {
                console.line("would \(change)")
            } else {
                do {
                    try await admin.apply(change)
                    console.line("done: \(change)")
                } catch let error as KafkaError where error.code == KafkaError.unsupportedFeatureCode {
                    // Tansu (the local stack) has no AlterConfigs: the topic works with the broker's defaults.
                    console.line("warning: the broker cannot \(change) (\(error.message)); set them with the cluster's own tools")
                }
            }
        }
        guard !dryRun else { return }
        let after = try await admin.clusterMetadata()
        for spec in wanted {
            let topic = after.topic(spec.name)
            console.line("topic \(spec.name): \(topic?.partitions.count ?? 0) partitions, replication \(topic?.replicationFactor ?? 0)")
        }
    }

    func list() async throws {
        let cluster = try await admin().clusterMetadata()
        console.table(["TOPIC", "PARTITIONS", "REPLICATION", "UNDER-REPLICATED"], cluster.topics.map { topic in
            [topic.name, String(topic.partitions.count), String(topic.replicationFactor),
             String(topic.partitions.filter { $0.inSync < $0.replicas }.count)]
        })
    }

    /// The topic config: `TOPICS_CONFIG`, else `$SIGHTSCREEN_ROOT/deploy/topics.conf`, else `deploy/topics.conf`.
    static func configPath(_ environment: EnvironmentReader) -> String {
        if let path = environment.raw("TOPICS_CONFIG") { return path }
        if let root = environment.raw("SIGHTSCREEN_ROOT") { return root + "/deploy/topics.conf" }
        return "deploy/topics.conf"
    }
}

extension TopicPlanEntry {
    /// The topic this line of the topic config asks for.
    var spec: KafkaTopicSpec {
        KafkaTopicSpec(name: name, partitions: Int32(partitions), replicationFactor: Int32(replicationFactor), config: config)
    }
}
