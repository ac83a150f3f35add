extension APNsClient {
    /// Sends `pushes`, at most `maxInFlightPerBatch` at once, and returns one outcome per push in their order.
    public func send(_ pushes: [APNsPush]) async -> [APNsOutcome] {
        let limit = max(1, configuration.maxInFlightPerBatch)
        var results = [APNsOutcome?](repeating: nil, count: pushes.count)
        await withTaskGroup(of: (Int, APNsOutcome).self) { group in
            var next = 0
            func start() {
                let index = next
                next += 1
                group.addTask { (index, await self.send(pushes[index])) }
            }
            while next < pushes.count && next < limit { start() }
            for await (index, outcome) in group {
                results[index] = outcome
                if next < pushes.count { start() }
            }
        }
        return results.map { $0! }
    }
}
