/// Reading Prometheus text exposition (a service's `/metrics`): the dev stack's progress line, the operator's
/// `sightscreen match`, and tests.
public enum PrometheusText {
    /// Sum of every sample of `metric` (any labels) whose label set contains all of `matching`.
    public static func sum(_ text: String, metric: String, matching: [String: String] = [:]) -> Double {
        samples(text, metric: metric, matching: matching).reduce(0) { $0 + $1.value }
    }

    /// The `quantile` (0…1) of histogram `metric` over every series whose labels contain `matching`, estimated from its
    /// cumulative buckets as PromQL's `histogram_quantile` does (linear inside the bucket; the highest finite bound
    /// when it falls in +Inf); nil without observations.
    public static func quantile(_ quantile: Double, _ text: String, histogram metric: String, matching: [String: String] = [:]) -> Double? {
        var buckets: [Double: Double] = [:]
        for sample in samples(text, metric: metric + "_bucket", matching: matching) {
            guard let le = label("le", in: sample.labels) else { continue }
            let bound = le == "+Inf" ? Double.infinity : Double(le) ?? .nan
            guard !bound.isNaN else { continue }
            buckets[bound, default: 0] += sample.value
        }
        let sorted = buckets.sorted { $0.key < $1.key }
        guard let total = sorted.last?.value, total > 0 else { return nil }
        let rank = quantile * total
        var lowerBound = 0.0, lowerCount = 0.0
        for (bound, count) in sorted {
            if count >= rank {
                guard bound.isFinite else { return lowerBound }
                let inBucket = count - lowerCount
                return inBucket > 0 ? lowerBound + (bound - lowerBound) * (rank - lowerCount) / inBucket : bound
            }
            (lowerBound, lowerCount) = (bound, count)
        }
        return lowerBound
    }

    private static func samples(_ text: String, metric: String, matching: [String: String]) -> [(labels: Substring, value: Double)] {
        var result: [(labels: Substring, value: Double)] = []
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            guard line.hasPrefix(metric) else { continue }
            let rest = line.dropFirst(metric.count)
            guard rest.first == " " || rest.first == "{" else { continue }
            let labels = rest.first == "{" ? rest.prefix { $0 != "}" } : ""
            guard matching.allSatisfy({ labels.contains("\($0.key)=\"\($0.value)\"") }) else { continue }
            if let value = line.split(separator: " ").last.flatMap({ Double($0) }) { result.append((labels, value)) }
        }
        return result
    }

    private static func label(_ name: String, in labels: Substring) -> String? {
        guard let start = labels.range(of: "\(name)=\"") else { return nil }
        let value = labels[start.upperBound...].prefix { $0 != "\"" }
        return String(value)
    }
}
