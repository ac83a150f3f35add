@testable import APNsSender
import Foundation
import Runtime
import Testing

/// Per-match freshness for the dashboard, bounded: a match idle for an hour loses its series.
@Suite struct MatchFreshnessSeriesTests {
    @Test func aMatchIdleForAnHourLosesItsSeriesAndALiveOneKeepsThem() {
        let registry = MetricsRegistry()
        let series = MatchFreshnessSeries(registry: registry)
        let start = Date(timeIntervalSince1970: 1_800_000_000)
        series.observe(match: "101", priority: 10, freshness: 1.5, count: 3, at: start)
        series.observe(match: "202", priority: 5, freshness: 0.4, count: 1, at: start)
        var text = registry.render()
        #expect(text.contains(#"push_freshness_match_seconds_bucket{le="2",match="101",priority="10"} 3"#), "\(text)")
        #expect(text.contains(#"push_freshness_match_seconds_count{match="202",priority="5"} 1"#), "\(text)")
        // 202 keeps sending; 101 has had nothing for over an hour.
        series.observe(match: "202", priority: 5, freshness: 0.4, count: 1, at: start.addingTimeInterval(1_800))
        series.observe(match: "202", priority: 5, freshness: 0.4, count: 1, at: start.addingTimeInterval(3_700))
        text = registry.render()
        #expect(!text.contains(#"match="101""#), "101's series are gone: \(text)")
        #expect(text.contains(#"push_freshness_match_seconds_count{match="202",priority="5"} 3"#), "\(text)")
        #expect(series.matches == ["202"])
    }
}
