/// A consumer group as its coordinator describes it.
public struct KafkaGroupDescription: Sendable, Hashable, Codable {
    public let group: String
    /// `Stable`, `PreparingRebalance`, `CompletingRebalance`, `Empty` (no member) or `Dead` (unknown to the broker).
    public let state: String
    /// Members in the current generation.
    public let members: Int
    /// The assignor in use (`range`, `cooperative-sticky`, …); empty when the group has no member.
    public let protocolName: String

    public init(group: String, state: String, members: Int, protocolName: String) {
        self.group = group
        self.state = state
        self.members = members
        self.protocolName = protocolName
    }
}
