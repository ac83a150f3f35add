/// A change of a consumer's partition assignment, reported from the rebalance callback.
public enum KafkaRebalanceEvent: Sendable, Equatable {
    /// Partitions added to this member (eager: the whole new assignment; cooperative: the increment).
    case assigned([KafkaTopicPartition])
    /// Partitions taken away; `lost` is true when they were lost (session timeout), not revoked cleanly.
    case revoked([KafkaTopicPartition], lost: Bool)
    /// The group reported an error during rebalance; the assignment was cleared.
    case failed(KafkaError)
}
