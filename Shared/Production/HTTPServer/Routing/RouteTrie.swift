/// A registered route: its pattern, where its parameters sit, and its handler.
struct Route: Sendable {
    let method: HTTPMethod
    let pattern: String
    /// (segment index, parameter name) for each `:name` segment.
    let parameters: [(index: Int, name: String)]
    let handler: HTTPHandler
    /// Asked first, on the server's thread (see `HTTPImmediateHandler`).
    let immediate: HTTPImmediateHandler?
}

/// The outcome of looking a method and path up.
enum RouteMatch: Sendable {
    /// A route answers this method and path; `parameters` are percent-decoded.
    case found(Route, parameters: [String: String])
    /// The path exists but not for this method.
    case methodNotAllowed(allowed: [HTTPMethod])
    /// No route has this path.
    case notFound
}

/// A path trie: literal children take precedence over the single `:param` child at each level.
///
/// Routes without parameters are also kept by their exact pattern: a request path spelled exactly so (the
/// common case: `/matches/live`) is found with one dictionary look-up, without splitting or decoding the path.
struct RouteTrie: Sendable {
    /// Parameterless routes by pattern and method (only on the root node).
    private var exact: [String: [HTTPMethod: Route]] = [:]
    private var literals: [String: RouteTrie] = [:]
    /// Zero or one element (an array gives the recursion indirection).
    private var parameterChild: [RouteTrie] = []
    private var routes: [HTTPMethod: Route] = [:]

    /// Splits a path into its non-empty segments (`/a//b/` → `["a", "b"]`).
    static func segments(_ path: String) -> [Substring] {
        path.split(separator: "/", omittingEmptySubsequences: true)
    }

    /// Adds `route` (at the root).
    mutating func insert(_ route: Route) {
        if route.parameters.isEmpty { exact[route.pattern, default: [:]][route.method] = route }
        insert(route, segments: RouteTrie.segments(route.pattern)[...])
    }

    /// Adds `route` at `segments`; a second route for the same method and shape is a programming error.
    private mutating func insert(_ route: Route, segments: ArraySlice<Substring>) {
        guard let first = segments.first else {
            precondition(routes[route.method] == nil, "duplicate route \(route.method) \(route.pattern)")
            routes[route.method] = route
            return
        }
        let rest = segments.dropFirst()
        if first.hasPrefix(":") {
            if parameterChild.isEmpty { parameterChild.append(RouteTrie()) }
            parameterChild[0].insert(route, segments: rest)
        } else {
            literals[String(first), default: RouteTrie()].insert(route, segments: rest)
        }
    }

    /// Finds the route for `method` and `path`. HEAD falls back to GET.
    func match(_ method: HTTPMethod, path: String) -> RouteMatch {
        // The exact spelling of a parameterless route: the trie would find the same route (literals first).
        if let routes = exact[path], let route = routes[method] ?? (method == .head ? routes[.get] : nil) {
            return .found(route, parameters: [:])
        }
        let segments = RouteTrie.segments(path).map { String($0).removingPercentEncodingIfValid }
        var candidates: [RouteTrie] = []
        collect(segments[...], into: &candidates)
        for node in candidates {
            if let route = node.routes[method] ?? (method == .head ? node.routes[.get] : nil) {
                var parameters: [String: String] = [:]
                for (index, name) in route.parameters { parameters[name] = segments[index] }
                return .found(route, parameters: parameters)
            }
        }
        guard let node = candidates.first else { return .notFound }
        var allowed = Set(node.routes.keys)
        if allowed.contains(.get) { allowed.insert(.head) }
        return .methodNotAllowed(allowed: allowed.sorted { $0.rawValue < $1.rawValue })
    }

    /// Every node with routes that `segments` reaches, literal paths first.
    private func collect(_ segments: ArraySlice<String>, into candidates: inout [RouteTrie]) {
        guard let first = segments.first else {
            if !routes.isEmpty { candidates.append(self) }
            return
        }
        let rest = segments.dropFirst()
        literals[first]?.collect(rest, into: &candidates)
        parameterChild.first?.collect(rest, into: &candidates)
    }
}

extension String {
    /// Percent-decoded text, or the text itself when it holds an invalid escape.
    var removingPercentEncodingIfValid: String {
        guard contains("%") else { return self }
        return removingPercentEncoding ?? self
    }
}
