import Foundation

/// Prometheus' HTTP API (`/api/v1/…`) as the tests and the demo read it: instant queries, the
/// metric names it holds, the alerts it evaluates.
public struct PrometheusClient: Sendable {
    public let baseURL: String
    private let http = DevHTTP(timeout: 10)

    public init(baseURL: String) {
        self.baseURL = baseURL
    }

    /// One series of an instant vector: its labels and value.
    public struct Sample: Sendable, Equatable {
        public var labels: [String: String]
        public var value: Double
    }

    /// One alert Prometheus evaluates now (`/api/v1/alerts`): its name, labels and state.
    public struct Alert: Sendable, Equatable, CustomStringConvertible {
        public var name: String
        public var labels: [String: String]
        public var state: String
        public var description: String {
            let rest = labels.filter { $0.key != "alertname" }.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }
            return "\(name){\(rest.joined(separator: ","))} \(state)"
        }
    }

    /// The instant vector `query` evaluates to now.
    public func query(_ query: String) async throws(DevStackError) -> [Sample] {
        let data = try await dataField("/api/v1/query?query=\(Self.encoded(query))")
        guard let object = data as? [String: Any], object["resultType"] as? String == "vector",
              let result = object["result"] as? [[String: Any]] else {
            throw .request(url: baseURL + "/api/v1/query", reason: "not an instant vector for \(query)")
        }
        return result.compactMap { series in
            guard let labels = series["metric"] as? [String: String], let pair = series["value"] as? [Any],
                  pair.count == 2, let text = pair[1] as? String, let value = Double(text) else { return nil }
            return Sample(labels: labels, value: value)
        }
    }

    /// Every metric name Prometheus holds a series of.
    public func metricNames() async throws(DevStackError) -> Set<String> {
        guard let names = try await dataField("/api/v1/label/__name__/values") as? [String] else {
            throw .request(url: baseURL + "/api/v1/label/__name__/values", reason: "not a list of names")
        }
        return Set(names)
    }

    /// The alerts pending or firing now.
    public func alerts() async throws(DevStackError) -> [Alert] {
        guard let object = try await dataField("/api/v1/alerts") as? [String: Any], let alerts = object["alerts"] as? [[String: Any]] else {
            throw .request(url: baseURL + "/api/v1/alerts", reason: "no alerts list")
        }
        return alerts.compactMap { alert in
            guard let labels = alert["labels"] as? [String: String], let name = labels["alertname"], let state = alert["state"] as? String else { return nil }
            return Alert(name: name, labels: labels, state: state)
        }
    }

    /// Every alert that was firing at some moment of the last `window` (from the `ALERTS` series).
    public func alertsFired(within window: Duration) async throws(DevStackError) -> [Alert] {
        let seconds = max(1, window.components.seconds)
        return try await query("max_over_time(ALERTS{alertstate=\"firing\"}[\(seconds)s])").map { sample in
            Alert(name: sample.labels["alertname"] ?? "?", labels: sample.labels, state: "fired")
        }
    }

    /// Whether every rule group has been evaluated without an error (`/api/v1/rules`); the errors otherwise.
    public func ruleErrors() async throws(DevStackError) -> [String] {
        guard let object = try await dataField("/api/v1/rules") as? [String: Any], let groups = object["groups"] as? [[String: Any]] else {
            throw .request(url: baseURL + "/api/v1/rules", reason: "no rule groups")
        }
        return groups.flatMap { group in
            (group["rules"] as? [[String: Any]] ?? []).compactMap { rule in
                guard let error = rule["lastError"] as? String, !error.isEmpty else { return nil }
                return "\(rule["name"] as? String ?? "?"): \(error)"
            }
        }
    }

    /// Prometheus' graph page showing `queries` over the last `range` (a Prometheus duration, e.g. `15m`).
    public func graphURL(_ queries: [String], range: String = "15m") -> String {
        let parameters = queries.enumerated().map { index, query in
            "g\(index).expr=\(Self.encoded(query))&g\(index).tab=0&g\(index).range_input=\(range)"
        }
        return baseURL + "/graph?" + parameters.joined(separator: "&")
    }

    /// A query as a URL query value: everything but RFC 3986's unreserved characters percent-encoded.
    private static func encoded(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: CharacterSet.alphanumerics.union(CharacterSet(charactersIn: "-._~"))) ?? text
    }

    /// The `data` of a successful API answer.
    private func dataField(_ path: String) async throws(DevStackError) -> Any {
        let reply = try await http.get(baseURL + path)
        guard reply.status == 200, let object = try? JSONSerialization.jsonObject(with: reply.body) as? [String: Any],
              object["status"] as? String == "success", let data = object["data"] else {
            throw .request(url: baseURL + path, reason: "status \(reply.status): \(reply.text.prefix(300))")
        }
        return data
    }
}
