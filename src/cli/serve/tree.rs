//! The game of a browser session as a tree: every move anyone made from any position, so that
//! a person can step back through the game without taking moves back and try other moves
//! (variations). Node 0 is the start; a node's first child is its main continuation, the
//! others are variations in the order they were made. The position on show is the `cursor`;
//! the line the page lists and plots is the path to the cursor continued by first children.
//!
//! Invariants: a node's `parent` is smaller than its index; a removed node (and everything
//! below it) is out of its parent's `children` and marked `removed`, never reused; the tree
//! holds at most `MAX_NODES` nodes, removed ones included. Scores are kept as searched:
//! `cp`/`mate` from player 1's point of view.

/// The most nodes a session's tree may hold (a bound on what a page can make the server keep).
pub const MAX_NODES: usize = 5_000;

/// The engine's evaluation of a node's position, from player 1's point of view.
#[derive(Clone, Debug, PartialEq)]
pub struct Score {
    /// Centipawns (the game's centi-units) for player 1, when not a forced result.
    pub cp: Option<i64>,
    /// A forced result: moves (chess) or plies to it; positive when player 1 wins.
    pub mate: Option<i64>,
    pub depth: u32,
    /// As the page writes it, from player 1's point of view (`+0.35`, `#3`).
    pub text: String,
}

/// The solver's value of a node's position, for player 1.
#[derive(Clone, Debug, PartialEq)]
pub struct Exact {
    /// Positive: player 1 wins (by so much), 0 a draw, negative: player 2 wins.
    pub value: i32,
    pub label: String,
}

#[derive(Clone, Debug)]
pub struct Node<M> {
    /// The move that leads here (None at the start), and how people write it (read in the
    /// parent's position when the node was made; empty at the start).
    pub mv: Option<M>,
    pub text: String,
    pub parent: usize,
    pub children: Vec<usize>,
    pub removed: bool,
    pub score: Option<Score>,
    pub exact: Option<Exact>,
    /// The game review has searched this node (with or without a score).
    pub reviewed: bool,
    /// A loaded record's comment after this move (or before the first, at the start), and
    /// its NAGs (`$1 $14`); empty where none.
    pub comment: String,
    pub nags: String,
}

#[derive(Clone, Debug)]
pub struct Tree<M> {
    nodes: Vec<Node<M>>,
    pub cursor: usize,
}

impl<M: Copy + PartialEq> Default for Tree<M> {
    fn default() -> Self {
        Self::new()
    }
}

impl<M: Copy + PartialEq> Tree<M> {
    pub fn new() -> Self {
        Tree {
            nodes: vec![Node {
                mv: None,
                text: String::new(),
                parent: 0,
                children: Vec::new(),
                removed: false,
                score: None,
                exact: None,
                reviewed: false,
                comment: String::new(),
                nags: String::new(),
            }],
            cursor: 0,
        }
    }

    pub fn node(&self, i: usize) -> Option<&Node<M>> {
        self.nodes.get(i).filter(|n| !n.removed)
    }

    pub fn node_mut(&mut self, i: usize) -> Option<&mut Node<M>> {
        self.nodes.get_mut(i).filter(|n| !n.removed)
    }

    /// Every node still in the tree, with its index.
    pub fn live(&self) -> impl Iterator<Item = (usize, &Node<M>)> {
        self.nodes.iter().enumerate().filter(|(_, n)| !n.removed)
    }

    pub fn is_leaf(&self, i: usize) -> bool {
        self.node(i).is_some_and(|n| n.children.is_empty())
    }

    /// The nodes from the start's first move down to `i` (empty for the start).
    pub fn path(&self, i: usize) -> Vec<usize> {
        let mut out = Vec::new();
        let mut at = i;
        while at != 0 && at < self.nodes.len() {
            out.push(at);
            at = self.nodes[at].parent;
        }
        out.reverse();
        out
    }

    /// The moves from the start to `i`.
    pub fn moves_to(&self, i: usize) -> Vec<M> {
        self.path(i)
            .into_iter()
            .filter_map(|n| self.nodes[n].mv)
            .collect()
    }

    /// The line through `i`: the start, the path to `i`, then first children to the end.
    pub fn line_through(&self, i: usize) -> Vec<usize> {
        let mut out = vec![0];
        out.extend(self.path(i));
        let mut at = i;
        while let Some(&next) = self.node(at).and_then(|n| n.children.first()) {
            out.push(next);
            at = next;
        }
        out
    }

    /// The child of `parent` reached by `mv`: the existing one, else a new last child (a
    /// variation, or the main continuation of a leaf), written `text()`. `replace` first
    /// removes every other continuation. An error when the tree is full.
    pub fn child(
        &mut self,
        parent: usize,
        mv: M,
        replace: bool,
        text: impl FnOnce() -> String,
    ) -> Result<usize, String> {
        let Some(p) = self.node(parent) else {
            return Err(format!("no position {parent} in this game"));
        };
        let existing = p
            .children
            .iter()
            .copied()
            .find(|&c| self.nodes[c].mv == Some(mv));
        if replace {
            let others: Vec<usize> = p
                .children
                .iter()
                .copied()
                .filter(|&c| Some(c) != existing)
                .collect();
            for c in others {
                self.remove(c);
            }
        }
        if let Some(c) = existing {
            return Ok(c);
        }
        if self.nodes.len() >= MAX_NODES {
            return Err(format!(
                "this game holds {MAX_NODES} positions, the most a game may: start a new game"
            ));
        }
        let i = self.nodes.len();
        self.nodes.push(Node {
            mv: Some(mv),
            text: text(),
            parent,
            children: Vec::new(),
            removed: false,
            score: None,
            exact: None,
            reviewed: false,
            comment: String::new(),
            nags: String::new(),
        });
        self.nodes[parent].children.push(i);
        Ok(i)
    }

    /// Takes `i` and everything below it out of the tree (not the start).
    pub fn remove(&mut self, i: usize) {
        if i == 0 || self.node(i).is_none() {
            return;
        }
        let parent = self.nodes[i].parent;
        self.nodes[parent].children.retain(|&c| c != i);
        let mut stack = vec![i];
        while let Some(n) = stack.pop() {
            self.nodes[n].removed = true;
            stack.extend(std::mem::take(&mut self.nodes[n].children));
        }
        if self.node(self.cursor).is_none() {
            self.cursor = parent;
        }
    }

    /// Makes the variation through `i` its parent's main continuation, and so on up to the
    /// start (the line through `i` becomes the main line).
    pub fn promote(&mut self, i: usize) {
        let mut at = i;
        while at != 0 && self.node(at).is_some() {
            let parent = self.nodes[at].parent;
            let kids = &mut self.nodes[parent].children;
            if let Some(k) = kids.iter().position(|&c| c == at) {
                let c = kids.remove(k);
                kids.insert(0, c);
            }
            at = parent;
        }
    }

    /// Depth of `i`: the number of moves from the start.
    pub fn ply(&self, i: usize) -> usize {
        self.path(i).len()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn variations_replace_remove_and_promote() {
        let mut t: Tree<u8> = Tree::new();
        let a = t.child(0, 1, false, String::new).unwrap();
        let b = t.child(a, 2, false, String::new).unwrap();
        let c = t.child(b, 3, false, String::new).unwrap();
        assert_eq!(t.line_through(0), vec![0, a, b, c]);
        // The same move again is the same node; another is a variation after the main one.
        assert_eq!(t.child(a, 2, false, String::new).unwrap(), b);
        let v = t.child(a, 9, false, String::new).unwrap();
        assert_eq!(t.node(a).unwrap().children, vec![b, v]);
        assert_eq!(t.line_through(v), vec![0, a, v]);
        assert_eq!(t.moves_to(v), vec![1, 9]);
        t.promote(v);
        assert_eq!(t.line_through(0), vec![0, a, v]);
        // Replacing from `a` with the main move keeps it and drops the rest.
        t.cursor = c;
        assert_eq!(t.child(a, 9, true, String::new).unwrap(), v);
        assert!(t.node(b).is_none() && t.node(c).is_none());
        assert_eq!(
            t.cursor, a,
            "the cursor leaves a removed node for its parent"
        );
        assert_eq!(t.live().count(), 3);
        assert_eq!(t.ply(v), 2);
        t.remove(0);
        assert!(t.node(0).is_some(), "the start stays");
    }

    #[test]
    fn the_tree_is_bounded() {
        let mut t: Tree<u32> = Tree::new();
        let mut at = 0;
        for m in 0..(MAX_NODES as u32 - 1) {
            at = t.child(at, m, false, String::new).unwrap();
        }
        assert!(t.child(at, 0, false, String::new).is_err());
        // An existing move is still found when full.
        assert!(t.child(0, 0, false, String::new).is_ok());
    }
}
