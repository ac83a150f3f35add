import Foundation

/// The freshness report drawn as one SVG, no dependencies: a panel per match (1,100 × 220), x = minutes since the run's
/// first served ball, y = freshness on a log scale from 0.1 s to 60 s, the p50 and p99 of each bucket as lines, every
/// fault as a translucent band with its kind, and a dashed line at the 2 s target.
public enum FreshnessChart {
    static let width = 1_100.0
    static let panelHeight = 220.0
    static let margin = (left: 60.0, right: 20.0, top: 28.0, bottom: 30.0)
    static let range = (low: 0.1, high: 60.0)
    static let labelRows = 6
    /// The freshness target outside faults (issue 42), in seconds.
    public static let target = 2.0

    public static func svg(_ report: FreshnessCheck.Report) -> String {
        let panels = max(1, report.matches.count)
        let height = Double(panels) * panelHeight
        let lastMs = ([report.startedAt] + report.faults.map(\.end)
            + report.matches.flatMap { $0.buckets.map { $0.start + report.bucketMilliseconds } }).max() ?? report.startedAt
        let spanMinutes = max(1.0, Double(lastMs - report.startedAt) / 60_000)
        var out = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"\(Int(width))\" height=\"\(Int(height))\" font-family=\"sans-serif\" font-size=\"11\">\n"
        for (panel, match) in report.matches.enumerated() {
            let top = Double(panel) * panelHeight
            let plot = (x0: margin.left, x1: width - margin.right, y0: top + margin.top, y1: top + panelHeight - margin.bottom)
            func x(_ ms: Int64) -> Double { plot.x0 + (plot.x1 - plot.x0) * min(1, max(0, Double(ms - report.startedAt) / 60_000 / spanMinutes)) }
            func y(_ seconds: Double) -> Double {
                let clamped = min(range.high, max(range.low, seconds))
                let share = (log10(clamped) - log10(range.low)) / (log10(range.high) - log10(range.low))
                return plot.y1 - (plot.y1 - plot.y0) * share
            }
            out += "<g class=\"panel\" data-fixture=\"\(escape(match.fixture))\">\n"
            out += "<text x=\"\(plot.x0)\" y=\"\(top + 16)\" font-weight=\"bold\">match \(escape(match.fixture)): outside faults p50 \(seconds(match.outside.p50)) p99 \(seconds(match.outside.p99)) (n \(match.outside.count)); inside p50 \(seconds(match.inside.p50)) p99 \(seconds(match.inside.p99)) (n \(match.inside.count))</text>\n"
            out += "<rect x=\"\(plot.x0)\" y=\"\(plot.y0)\" width=\"\(plot.x1 - plot.x0)\" height=\"\(plot.y1 - plot.y0)\" fill=\"none\" stroke=\"#999\"/>\n"
            for (number, fault) in report.faults.enumerated() {
                let left = x(fault.start), right = max(x(fault.end), left + 1)
                out += "<rect class=\"fault\" x=\"\(format(left))\" y=\"\(plot.y0)\" width=\"\(format(right - left))\" height=\"\(plot.y1 - plot.y0)\" fill=\"#d62728\" fill-opacity=\"0.15\"><title>\(escape(fault.kind))</title></rect>\n"
                // Labels of faults close together go on staggered rows.
                out += "<text x=\"\(format(left + 2))\" y=\"\(format(plot.y0 + 10 + Double(number % labelRows) * 10))\" font-size=\"9\" fill=\"#a00\">\(escape(fault.kind))</text>\n"
            }
            for tick in [0.1, 1, 10, 60] {
                out += "<text x=\"\(plot.x0 - 6)\" y=\"\(format(y(tick) + 4))\" text-anchor=\"end\">\(tick < 1 ? "0.1" : String(Int(tick))) s</text>\n"
            }
            out += "<line x1=\"\(plot.x0)\" x2=\"\(plot.x1)\" y1=\"\(format(y(target)))\" y2=\"\(format(y(target)))\" stroke=\"#555\" stroke-dasharray=\"4 3\"/>\n"
            for minute in stride(from: 0, through: Int(spanMinutes), by: max(1, Int(spanMinutes) / 10)) {
                let tx = plot.x0 + (plot.x1 - plot.x0) * Double(minute) / spanMinutes
                out += "<text x=\"\(format(tx))\" y=\"\(plot.y1 + 14)\" text-anchor=\"middle\">\(minute) min</text>\n"
            }
            for (name, color, value) in [("p50", "#1f77b4", \LatencyStats.p50), ("p99", "#ff7f0e", \LatencyStats.p99)] {
                let points = match.buckets.map { "\(format(x($0.start + report.bucketMilliseconds / 2))),\(format(y(Double($0.stats[keyPath: value]) / 1000)))" }
                guard !points.isEmpty else { continue }
                out += "<polyline class=\"\(name)\" fill=\"none\" stroke=\"\(color)\" stroke-width=\"1.5\" points=\"\(points.joined(separator: " "))\"/>\n"
            }
            out += "</g>\n"
        }
        out += "</svg>\n"
        return out
    }

    static func seconds(_ milliseconds: Int64) -> String { String(format: "%.2f s", Double(milliseconds) / 1000) }
    static func format(_ value: Double) -> String { String(format: "%.1f", value) }
    static func escape(_ text: String) -> String {
        text.replacingOccurrences(of: "&", with: "&amp;").replacingOccurrences(of: "<", with: "&lt;")
            .replacingOccurrences(of: ">", with: "&gt;").replacingOccurrences(of: "\"", with: "&quot;")
    }
}
