/// One line of `deploy/topics.conf`: a topic with its partition count, replication factor and topic configs.
public struct TopicPlanEntry: Sendable, Equatable {
    public let name: String
    public let partitions: Int
    /// Replicas per partition on a production cluster (`sightscreen topics apply` uses fewer only on a cluster with
    /// fewer brokers, and says so).
    public let replicationFactor: Int
    public let config: [String: String]

    public init(name: String, partitions: Int, replicationFactor: Int = TopicPlan.defaultReplicationFactor, config: [String: String]) {
        self.name = name
        self.partitions = partitions
        self.replicationFactor = replicationFactor
        self.config = config
    }
}

/// A line of the topic config that cannot be used, with its number and text.
public struct TopicPlanError: Error, Equatable, CustomStringConvertible {
    public let line: Int
    public let text: String
    public let reason: String

    public var description: String { "topics.conf line \(line) (\(text.debugDescription)): \(reason)" }
}

/// Parses the topic config: `name partitions [replicas] [key=value ...]` per line, `#` comments; replicas default to
/// ``defaultReplicationFactor``.
public enum TopicPlan {
    /// Three copies of every partition: a managed cluster's default, survives one broker lost with
    /// `min.insync.replicas=2`.
    public static let defaultReplicationFactor = 3

    public static func parse(_ text: String) throws(TopicPlanError) -> [TopicPlanEntry] {
        var entries: [TopicPlanEntry] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard !fields.isEmpty else { continue }
            let number = index + 1
            guard fields.count >= 2, let partitions = Int(fields[1]), (1...1024).contains(partitions) else {
                throw TopicPlanError(line: number, text: String(rawLine), reason: "expected `name partitions [replicas] [key=value ...]` with 1...1024 partitions")
            }
            var config: [String: String] = [:]
            var replicationFactor = defaultReplicationFactor
            var rest = fields.dropFirst(2)
            if let third = rest.first, !third.contains("=") {
                guard let replicas = Int(third), (1...16).contains(replicas) else {
                    throw TopicPlanError(line: number, text: String(rawLine), reason: "replicas \(third) is not a number in 1...16")
                }
                replicationFactor = replicas
                rest = rest.dropFirst()
            }
            for pair in rest {
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, !parts[0].isEmpty else {
                    throw TopicPlanError(line: number, text: String(rawLine), reason: "\(pair) is not key=value")
                }
                config[parts[0]] = parts[1]
            }
            guard !entries.contains(where: { $0.name == fields[0] }) else {
                throw TopicPlanError(line: number, text: String(rawLine), reason: "topic \(fields[0]) declared twice")
            }
            if let minimum = config["min.insync.replicas"], Int(minimum).map({ $0 < 1 || $0 > replicationFactor }) ?? true {
                throw TopicPlanError(line: number, text: String(rawLine),
                                     reason: "min.insync.replicas=\(minimum) must be a number in 1...\(replicationFactor) (the replicas)")
            }
            entries.append(TopicPlanEntry(name: fields[0], partitions: partitions, replicationFactor: replicationFactor, config: config))
        }
        return entries
    }
}
