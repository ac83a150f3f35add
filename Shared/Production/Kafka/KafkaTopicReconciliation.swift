/// What `sightscreen topics apply` does to make a cluster's topics match the topic config: pure planning from the
/// desired topics and what the cluster reports, so it can be printed (`--dry-run`) before anything changes.
///
/// Rules:
/// - A topic wants `replicationFactor` replicas. On a cluster with fewer brokers it gets one per broker (a
///   development cluster; a warning says so) and `min.insync.replicas` no higher than its replicas.
/// - One replica on a cluster of three or more brokers is refused (an error) unless `allowUnreplicated`: one broker
///   lost would lose those partitions. That covers a topic already made so.
/// - Missing topics are created; fewer partitions than wanted are raised (never lowered: more is reported);
///   topic configs that differ from the wanted ones are set (other overrides on the topic are kept).
/// - Fewer replicas than wanted on an existing topic, and partitions with replicas out of sync, are reported: a
///   replication change is a partition reassignment, an operator's decision.
public struct KafkaTopicReconciliation: Sendable, Equatable {
    /// One change to the cluster.
    public enum Change: Sendable, Equatable, CustomStringConvertible {
        case create(KafkaTopicSpec)
        case addPartitions(topic: String, from: Int, to: Int)
        /// `overrides` is the topic's whole override set after the change; `changed` the keys that differ.
        case setConfigs(topic: String, overrides: [String: String], changed: [String: String])

        public var description: String {
            switch self {
            case .create(let spec):
                let configs = spec.config.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
                return "create \(spec.name): \(spec.partitions) partitions, replication \(spec.replicationFactor)\(configs.isEmpty ? "" : ", " + configs)"
            case .addPartitions(let topic, let from, let to):
                return "add partitions to \(topic): \(from) → \(to)"
            case .setConfigs(let topic, _, let changed):
                return "set configs of \(topic): " + changed.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: " ")
            }
        }
    }

    /// Something the operator should know; `isError` ones stop `apply` before it changes anything.
    public struct Finding: Sendable, Equatable, CustomStringConvertible {
        public let topic: String?
        public let message: String
        public let isError: Bool

        /// The topic and the message, without the severity.
        public var text: String { (topic.map { "\($0): " } ?? "") + message }

        public var description: String { (isError ? "error: " : "warning: ") + text }
    }

    public let changes: [Change]
    public let findings: [Finding]

    public var errors: [Finding] { findings.filter(\.isError) }

    /// Plans the changes.
    /// - Parameters:
    ///   - wanted: the topics of the topic config.
    ///   - cluster: the cluster's metadata.
    ///   - overrides: each existing topic's configs set on the topic (nil: the cluster did not say; configs unchecked).
    ///   - allowUnreplicated: accept one replica on a cluster of three or more brokers.
    public init(wanted: [KafkaTopicSpec], cluster: KafkaClusterMetadata, overrides: [String: [String: String]]?, allowUnreplicated: Bool) {
        var changes: [Change] = []
        var findings: [Finding] = []
        let brokers = cluster.brokers.count
        if overrides == nil {
            findings.append(Finding(topic: nil, message: "the cluster did not describe topic configs; configs were not checked", isError: false))
        }
        for spec in wanted {
            var effective = spec
            if brokers < Int(spec.replicationFactor) {
                effective.replicationFactor = Int32(max(1, brokers))
                findings.append(Finding(topic: spec.name, message: "the cluster has \(brokers) broker(s): replication \(effective.replicationFactor) instead of \(spec.replicationFactor) (a development cluster)", isError: false))
            }
            if let minimum = effective.config["min.insync.replicas"].flatMap(Int32.init), minimum > effective.replicationFactor {
                effective.config["min.insync.replicas"] = String(effective.replicationFactor)
            }
            if effective.replicationFactor == 1, brokers >= 3, !allowUnreplicated {
                findings.append(Finding(topic: spec.name, message: "replication 1 on a cluster of \(brokers) brokers: one broker lost loses its partitions (pass --allow-unreplicated to accept)", isError: true))
            }
            guard let existing = cluster.topic(spec.name) else {
                changes.append(.create(effective))
                continue
            }
            let partitions = existing.partitions.count
            if partitions < Int(effective.partitions) {
                changes.append(.addPartitions(topic: spec.name, from: partitions, to: Int(effective.partitions)))
            } else if partitions > Int(effective.partitions) {
                findings.append(Finding(topic: spec.name, message: "has \(partitions) partitions, the topic config says \(effective.partitions) (partitions cannot be removed; update the config)", isError: false))
            }
            let replicas = existing.replicationFactor
            if replicas < Int(effective.replicationFactor) {
                findings.append(Finding(topic: spec.name, message: "has replication \(replicas), wanted \(effective.replicationFactor): reassign its partitions (kafka-reassign-partitions.sh)", isError: replicas == 1 && brokers >= 3 && !allowUnreplicated))
            }
            let outOfSync = existing.partitions.filter { $0.inSync < $0.replicas }
            if !outOfSync.isEmpty {
                findings.append(Finding(topic: spec.name, message: "\(outOfSync.count) partition(s) under-replicated (in-sync replicas below replicas): \(outOfSync.map { String($0.id) }.joined(separator: ","))", isError: false))
            }
            if let current = overrides?[spec.name] {
                let changed = effective.config.filter { current[$0.key] != $0.value }
                if !changed.isEmpty {
                    changes.append(.setConfigs(topic: spec.name, overrides: current.merging(effective.config) { _, new in new }, changed: changed))
                }
            }
        }
        self.changes = changes
        self.findings = findings
    }
}
