/// One line of `deploy/topics.conf`: a topic with its partition count and topic configs.
public struct TopicPlanEntry: Sendable, Equatable {
    public let name: String
    public let partitions: Int
    public let config: [String: String]

    public init(name: String, partitions: Int, config: [String: String]) {
        self.name = name
        self.partitions = partitions
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

/// Parses the topic config: `name partitions [key=value ...]` per line, `#` comments.
public enum TopicPlan {
    public static func parse(_ text: String) throws(TopicPlanError) -> [TopicPlanEntry] {
        var entries: [TopicPlanEntry] = []
        for (index, rawLine) in text.split(separator: "\n", omittingEmptySubsequences: false).enumerated() {
            let line = rawLine.split(separator: "#", maxSplits: 1, omittingEmptySubsequences: false).first ?? ""
            let fields = line.split(whereSeparator: { $0 == " " || $0 == "\t" }).map(String.init)
            guard !fields.isEmpty else { continue }
            let number = index + 1
            guard fields.count >= 2, let partitions = Int(fields[1]), (1...1024).contains(partitions) else {
                throw TopicPlanError(line: number, text: String(rawLine), reason: "expected `name partitions [key=value ...]` with 1...1024 partitions")
            }
            var config: [String: String] = [:]
            for pair in fields.dropFirst(2) {
                let parts = pair.split(separator: "=", maxSplits: 1).map(String.init)
                guard parts.count == 2, !parts[0].isEmpty else {
                    throw TopicPlanError(line: number, text: String(rawLine), reason: "\(pair) is not key=value")
                }
                config[parts[0]] = parts[1]
            }
            guard !entries.contains(where: { $0.name == fields[0] }) else {
                throw TopicPlanError(line: number, text: String(rawLine), reason: "topic \(fields[0]) declared twice")
            }
            entries.append(TopicPlanEntry(name: fields[0], partitions: partitions, config: config))
        }
        return entries
    }
}
