/// The offset range a partition holds: `low` is the oldest retained offset, `high` the next to be written.
public struct KafkaWatermarks: Sendable, Hashable {
    public let low: Int64
    public let high: Int64

    public init(low: Int64, high: Int64) {
        self.low = low
        self.high = high
    }
}
