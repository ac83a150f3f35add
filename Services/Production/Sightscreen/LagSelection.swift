import CommandLineSupport

/// What `sightscreen lag` reports: the groups and topics of `--group G` / `--topic T`.
///
/// - no option: every service group with its own topics;
/// - `--group G`: that group on its known topics (any group: all pipeline topics when unknown);
/// - `--topic T`: narrows the topics; without `--group`, the service groups that consume T.
struct LagSelection: Equatable {
    var groups: [String] = []
    var topics: [String] = []

    /// Parses the options after `lag`.
    static func parse(_ options: ArraySlice<String>) throws(UsageError) -> LagSelection {
        var selection = LagSelection()
        var iterator = options.makeIterator()
        while let option = iterator.next() {
            switch option {
            case "--group":
                guard let group = iterator.next(), !group.isEmpty else { throw UsageError(message: "--group needs a name") }
                selection.groups.append(group)
            case "--topic":
                guard let topic = iterator.next(), !topic.isEmpty else { throw UsageError(message: "--topic needs a name") }
                selection.topics.append(topic)
            default:
                throw UsageError(message: "lag takes --group NAME and --topic NAME, not \(option)")
            }
        }
        return selection
    }

    /// (group, topics) pairs to query, in order; groups with no topic left are dropped.
    func plan(known: [(group: String, topics: [String])], allTopics: [String]) -> [(group: String, topics: [String])] {
        let groups: [(group: String, topics: [String])]
        if self.groups.isEmpty {
            groups = known
        } else {
            groups = self.groups.map { name in
                (name, topics.isEmpty ? (known.first { $0.group == name }?.topics ?? allTopics) : topics)
            }
        }
        guard !topics.isEmpty else { return groups }
        return groups.compactMap { entry in
            let kept = self.groups.isEmpty ? entry.topics.filter(topics.contains) : entry.topics
            return kept.isEmpty ? nil : (entry.group, kept)
        }
    }
}
