import Foundation
import Synchronization

/// Label pairs of one metric series, e.g. `["topic": "push.jobs", "reason": "Unregistered"]`.
public typealias MetricLabels = [String: String]

/// A monotonically increasing count.
public final class Counter: Sendable {
    private let value = Atomic<Int>(0)

    /// Adds `amount` (must not be negative).
    public func increment(by amount: Int = 1) {
        precondition(amount >= 0, "a counter only goes up")
        value.add(amount, ordering: .relaxed)
    }

    /// The current count.
    public var count: Int { value.load(ordering: .relaxed) }
}

/// A value that goes up and down.
public final class Gauge: Sendable {
    private let value = LockedValue<Double>(0)

    public func set(_ newValue: Double) { value.withLock { $0 = newValue } }
    public func increment(by amount: Double = 1) { value.withLock { $0 += amount } }
    public func decrement(by amount: Double = 1) { value.withLock { $0 -= amount } }
    public var current: Double { value.withLock { $0 } }
}

/// Cumulative buckets of observed values (Prometheus histogram).
public final class Histogram: Sendable {
    /// Upper bounds of the buckets, ascending, without +Inf.
    public let upperBounds: [Double]
    private struct State {
        var bucketCounts: [Int]
        var sum: Double = 0
        var count: Int = 0
    }
    private let state: LockedValue<State>

    public init(upperBounds: [Double]) {
        self.upperBounds = upperBounds.sorted()
        self.state = LockedValue(State(bucketCounts: Array(repeating: 0, count: upperBounds.count)))
    }

    public func observe(_ value: Double) {
        observe(value, times: 1)
    }

    /// Observes `value` `times` times at once (many pushes answered in one round share their answer time).
    public func observe(_ value: Double, times: Int) {
        guard times > 0 else { return }
        state.withLock { state in
            if let index = upperBounds.firstIndex(where: { value <= $0 }) {
                state.bucketCounts[index] += times
            }
            state.sum += value * Double(times)
            state.count += times
        }
    }

    /// Observes a duration in seconds.
    public func observe(_ duration: Duration) {
        observe(duration.seconds)
    }

    /// (cumulative bucket counts, sum, count).
    public var snapshot: (cumulative: [Int], sum: Double, count: Int) {
        state.withLock { state in
            var running = 0
            let cumulative = state.bucketCounts.map { running += $0; return running }
            return (cumulative, state.sum, state.count)
        }
    }

    /// Default latency buckets in seconds, 0.5 ms to 10 s.
    public static let latencyBuckets: [Double] = [0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10]
}

/// Every metric of one process, rendered in the Prometheus text exposition format.
///
/// Asking twice for the same name and labels returns the same instrument, so call sites
/// may look metrics up lazily.
public final class MetricsRegistry: Sendable {
    fileprivate enum Instrument {
        case counter(Counter)
        case gauge(Gauge)
        case histogram(Histogram)

        var typeName: String {
            switch self {
            case .counter: "counter"
            case .gauge: "gauge"
            case .histogram: "histogram"
            }
        }
    }

    private struct Family {
        var help: String
        var type: String
        var series: [String: (labels: MetricLabels, instrument: Instrument)] = [:]
    }

    private let families = LockedValue<[String: Family]>([:])

    public init() {}

    public func counter(_ name: String, help: String, labels: MetricLabels = [:]) -> Counter {
        instrument(name, help: help, type: "counter", labels: labels) { .counter(Counter()) }.counter!
    }

    public func gauge(_ name: String, help: String, labels: MetricLabels = [:]) -> Gauge {
        instrument(name, help: help, type: "gauge", labels: labels) { .gauge(Gauge()) }.gauge!
    }

    public func histogram(
        _ name: String, help: String, labels: MetricLabels = [:], buckets: [Double] = Histogram.latencyBuckets
    ) -> Histogram {
        instrument(name, help: help, type: "histogram", labels: labels) {
            .histogram(Histogram(upperBounds: buckets))
        }.histogram!
    }

    private func instrument(
        _ name: String, help: String, type: String, labels: MetricLabels, make: () -> Instrument
    ) -> Instrument {
        let key = MetricsRegistry.labelText(labels)
        return families.withLock { families in
            // Services look instruments up per job or per message: a known series costs one label text and two hash look-ups.
            if let family = families[name], let existing = family.series[key] {
                precondition(family.type == type, "metric \(name) registered as \(family.type), asked as \(type)")
                return existing.instrument
            }
            precondition(MetricsRegistry.isValidName(name), "invalid metric name \(name)")
            var family = families[name] ?? Family(help: help, type: type)
            precondition(family.type == type, "metric \(name) registered as \(family.type), asked as \(type)")
            let created = make()
            family.series[key] = (labels, created)
            families[name] = family
            return created
        }
    }

    /// Drops every series of every metric whose labels have `label` = `value` (a per-match series once the match is
    /// no longer among those tracked: bounded cardinality). A later lookup creates the series again from zero.
    public func removeSeries(label: String, value: String) {
        families.withLock { families in
            for name in families.keys {
                families[name]!.series = families[name]!.series.filter { $0.value.labels[label] != value }
            }
        }
    }

    /// The Prometheus text format (version 0.0.4) of every metric.
    public func render() -> String {
        let snapshot = families.withLock { $0 }
        var out = ""
        for name in snapshot.keys.sorted() {
            let family = snapshot[name]!
            out += "# HELP \(name) \(family.help.replacingOccurrences(of: "\n", with: " "))\n"
            out += "# TYPE \(name) \(family.type)\n"
            for key in family.series.keys.sorted() {
                let (labels, instrument) = family.series[key]!
                switch instrument {
                case .counter(let counter):
                    out += "\(name)\(key) \(counter.count)\n"
                case .gauge(let gauge):
                    out += "\(name)\(key) \(MetricsRegistry.number(gauge.current))\n"
                case .histogram(let histogram):
                    let (cumulative, sum, count) = histogram.snapshot
                    for (index, bound) in histogram.upperBounds.enumerated() {
                        var withLe = labels
                        withLe["le"] = MetricsRegistry.number(bound)
                        out += "\(name)_bucket\(MetricsRegistry.labelText(withLe)) \(cumulative[index])\n"
                    }
                    var infinity = labels
                    infinity["le"] = "+Inf"
                    out += "\(name)_bucket\(MetricsRegistry.labelText(infinity)) \(count)\n"
                    out += "\(name)_sum\(key) \(MetricsRegistry.number(sum))\n"
                    out += "\(name)_count\(key) \(count)\n"
                }
            }
        }
        return out
    }

    static func isValidName(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, first == "_" || first == ":" || first.properties.isAlphabetic
        else { return false }
        return name.unicodeScalars.allSatisfy { $0.isASCII && ($0 == "_" || $0 == ":" || $0.properties.isAlphabetic || ("0"..."9").contains($0)) }
    }

    static func labelText(_ labels: MetricLabels) -> String {
        guard !labels.isEmpty else { return "" }
        var text = "{"
        for key in labels.count == 1 ? Array(labels.keys) : labels.keys.sorted() {
            if text.utf8.count > 1 { text += "," }
            text += key
            text += "=\""
            text += escaped(labels[key]!)
            text += "\""
        }
        return text + "}"
    }

    /// A label value with `\`, `"` and newlines escaped (the text format's rule); most values have none.
    private static func escaped(_ value: String) -> String {
        guard value.utf8.contains(where: { $0 == UInt8(ascii: "\\") || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\n") }) else {
            return value
        }
        return value
            .replacingOccurrences(of: "\\", with: "\\\\")
            .replacingOccurrences(of: "\"", with: "\\\"")
            .replacingOccurrences(of: "\n", with: "\\n")
    }

    static func number(_ value: Double) -> String {
        if value == value.rounded(), abs(value) < 1e15 { return String(Int64(value)) }
        return String(value)
    }
}

extension MetricsRegistry.Instrument {
    fileprivate var counter: Counter? { if case .counter(let c) = self { c } else { nil } }
    fileprivate var gauge: Gauge? { if case .gauge(let g) = self { g } else { nil } }
    fileprivate var histogram: Histogram? { if case .histogram(let h) = self { h } else { nil } }
}
