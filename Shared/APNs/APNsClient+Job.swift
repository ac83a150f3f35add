import Contracts

extension APNsClient {
    /// Sends a job's payload to all its targets, at most `maxInFlightPerBatch` at once, and returns
    /// one final outcome per target in the job's target order. `apns-id` is derived from the job id
    /// and the token, so a replayed job reuses the same ids.
    public func send(job: PushJob, collapseID: String? = nil) async -> [APNsOutcome] {
        let payload = Array(job.payload.utf8)
        let limit = max(1, configuration.maxInFlightPerBatch)
        var results = [APNsOutcome?](repeating: nil, count: job.targets.count)
        await withTaskGroup(of: (Int, APNsOutcome).self) { group in
            var next = 0
            func start() {
                let index = next
                let target = job.targets[index]
                next += 1
                group.addTask {
                    let outcome = await self.send(
                        payload: payload, target: target, kind: job.kind, priority: job.priority,
                        expiration: job.expiration,
                        apnsID: APNsID.derive(jobID: job.jobId, token: target.token), collapseID: collapseID)
                    return (index, outcome)
                }
            }
            while next < job.targets.count && next < limit { start() }
            for await (index, outcome) in group {
                results[index] = outcome
                if next < job.targets.count { start() }
            }
        }
        return results.map { $0! }
    }
}
