/// p50, p99 and max (milliseconds, nearest rank) of `count` samples; zeros when there are none. The checker's one
/// summary of a latency (freshness, a start after a follow).
public struct LatencyStats: Sendable, Equatable, Codable {
    public var count: Int
    public var p50: Int64
    public var p99: Int64
    public var max: Int64

    public init(_ samples: [Int64]) {
        let sorted = samples.sorted()
        count = sorted.count
        p50 = Self.rank(sorted, 0.50)
        p99 = Self.rank(sorted, 0.99)
        max = sorted.last ?? 0
    }

    static func rank(_ sorted: [Int64], _ quantile: Double) -> Int64 {
        guard !sorted.isEmpty else { return 0 }
        let index = Int((quantile * Double(sorted.count)).rounded(.up)) - 1
        return sorted[Swift.max(0, Swift.min(sorted.count - 1, index))]
    }
}
