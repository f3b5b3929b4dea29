/// Finds, for each directory, which of N globs it matches, from its parent's answer and its
/// own name: O(depth) to place a new directory, and in the common case not O(N) per name.
///
/// The literal leading components of every glob (`Library/Caches` of `Library/Caches/*`)
/// form a trie, so a directory only follows the trie edge named like it (one hash lookup)
/// and wakes the globs whose literal prefix ends there. Only globs past their literal prefix
/// are stepped one by one, and only in the subtrees their prefix leads to; a glob that starts
/// with a wildcard (`**/x`, `*/Caches`) is live everywhere and costs one step per directory.
package struct RuleIndex: Sendable {
    package let globs: [PathGlob]

    private struct TrieNode: Sendable {
        var children: [[UInt8]: Int32] = [:]
        /// Globs whose literal prefix ends at this node: (glob, segments in the prefix).
        var starting: [(glob: Int32, prefixLength: Int32)] = []
    }

    private var nodes: [TrieNode] = [TrieNode()]

    /// Where one directory stands: its trie node (or none) and the globs still live below it.
    package struct State: Sendable, Equatable {
        var node: Int32
        var live: [LiveGlob]
        /// No directory below this one can match any glob: a caller may store nothing.
        package var isDead: Bool { node < 0 && live.isEmpty }

        package static func == (lhs: State, rhs: State) -> Bool { lhs.node == rhs.node && lhs.live == rhs.live }
    }

    struct LiveGlob: Sendable, Equatable {
        var glob: Int32
        var state: PathGlob.State
    }

    /// A directory's state and the globs (indices into ``globs``, ascending) it matches.
    package struct Placement: Sendable, Equatable {
        package var state: State
        package var matched: [Int]
    }

    package init(_ globs: [PathGlob]) {
        self.globs = globs
        for (index, glob) in globs.enumerated() {
            var node = 0
            for component in glob.literalPrefix {
                if let child = nodes[node].children[component] {
                    node = Int(child)
                } else {
                    nodes.append(TrieNode())
                    nodes[node].children[component] = Int32(nodes.count - 1)
                    node = nodes.count - 1
                }
            }
            nodes[node].starting.append((Int32(index), Int32(glob.literalPrefix.count)))
        }
    }

    /// ROOT's placement.
    package var root: Placement { enter(node: 0, live: []) }

    /// The placement of a directory named `name` whose parent is in state `parent`.
    package func child(of parent: State, named name: some Collection<UInt8>) -> Placement {
        var live: [LiveGlob] = []
        for entry in parent.live {
            let next = globs[Int(entry.glob)].step(entry.state, name: name)
            if !next.isDead { live.append(LiveGlob(glob: entry.glob, state: next)) }
        }
        var node: Int32 = -1
        if parent.node >= 0, let child = nodes[Int(parent.node)].children[Array(name)] { node = child }
        return enter(node: node, live: live)
    }

    /// The placement of the directory at `path` (relative to ROOT), walking from ROOT.
    package func placement(of path: some Collection<UInt8>) -> Placement {
        var placement = root
        for component in PathComponents.split(path) {
            placement = child(of: placement.state, named: component)
        }
        return placement
    }

    private func enter(node: Int32, live: [LiveGlob]) -> Placement {
        var live = live
        if node >= 0 {
            for start in nodes[Int(node)].starting {
                let state = globs[Int(start.glob)].state(afterSegments: Int(start.prefixLength))
                live.append(LiveGlob(glob: start.glob, state: state))
            }
        }
        var matched: [Int] = []
        for entry in live where globs[Int(entry.glob)].isMatch(entry.state) { matched.append(Int(entry.glob)) }
        matched.sort()
        return Placement(state: State(node: node, live: live), matched: matched)
    }
}
