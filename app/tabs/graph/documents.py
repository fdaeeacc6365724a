"""The graph tab's documents and models: the graph shown (built in, or the user's file,
with the attribute choice), the keys its models are kept under, and the node classifier,
graph classifier and link predictor of the settings shown, made when first asked for.

A part of ``GraphTab`` (its base class beside ``TrainingTab``): it reads the tab's
controls (``params``, ``_attr_choice``) and keeps what it makes in the tab's stores
(``docs``, ``sessions``, ``graph_sessions``, ``link_sessions``, ``motif``).
"""

from __future__ import annotations

from app.tabs.graph.params import MODEL_KEY
from models.graphs.options import session_kwargs

__all__ = ["GraphDocuments"]


class GraphDocuments:
    def _doc_key(self) -> tuple:
        p = self.graph_form.values()
        return ("file", self._file_id) if p["dataset"] == "file" else (p["dataset"], p["seed"])

    doc_key = _doc_key      # the panels' name for it

    def base_document(self):
        """The graph as built or read, before the user's attribute choice."""
        from models.graphs import builtin_graph

        key = self._doc_key()
        if key[0] == "file":
            return self.file_doc
        if key not in self.docs:
            self.docs[key] = builtin_graph(key[0], seed=key[1])
        return self.docs[key]

    def document(self):
        """The graph with the chosen label and feature attributes."""
        doc = self.base_document()
        choice = self._attr_choice.get(self._doc_key())
        if choice is None or choice == (doc.label_attr, doc.feature_attrs):
            return doc
        cache_key = self._choice_doc_key()
        if cache_key not in self.docs:
            self.docs[cache_key] = doc.with_attributes(*choice)
        return self.docs[cache_key]

    def _choice_doc_key(self) -> tuple:
        return (*self._doc_key(), self._attr_choice.get(self._doc_key()))

    def _layout_key(self) -> tuple:
        return (self._doc_key(), self.params()["layout"], self.params()["seed"])

    def _graph_key(self) -> tuple:
        """The graph and its label / feature choice: what every model of it depends on."""
        return self._doc_key(), self._attr_choice.get(self._doc_key())

    def _session_key(self) -> tuple:
        p = self.params()
        return (*self._graph_key(), *(p[k] for k in MODEL_KEY))

    session_key = _session_key
    graph_key = _graph_key

    def _compare_key(self) -> tuple:
        """What a comparison depends on: the graph, its attributes, the split, epochs and
        the models' settings (``session_kwargs``)."""
        p = self.params()
        return (*self._graph_key(), p["seed"], p["train_per_class"], p["epochs"],
                *self._model_settings())

    def _model_settings(self) -> tuple:
        return tuple(sorted(session_kwargs(self.params()).items()))

    def _untrained_key(self) -> tuple:
        """What the models compared before training depend on: graph, attributes, split,
        the models' settings."""
        p = self.params()
        return (*self._graph_key(), p["seed"], p["train_per_class"], *self._model_settings())

    def session(self):
        from models.graphs import NodeClassificationSession

        key = self._session_key()
        if key not in self.sessions:
            p = self.params()
            self.sessions[key] = NodeClassificationSession(
                self.document().data, p["model"], device=self.ctx.device(), seed=p["seed"],
                train_per_class=p["train_per_class"], **session_kwargs(p))
        return self.sessions[key]

    def motif_graphs(self) -> list:
        """The graph-classification data set (made once): batches and the classifier."""
        from models.graphs import motif_graphs

        if self.motif is None:
            self.motif = motif_graphs(seed=0)
        return self.motif

    def graph_session(self):
        from models.graphs import GraphClassificationSession

        pooling = self.params()["pooling"]
        if pooling not in self.graph_sessions:
            self.graph_sessions[pooling] = GraphClassificationSession(
                self.motif_graphs(), pooling=pooling, device=self.ctx.device(), seed=0)
        return self.graph_sessions[pooling]

    def link_session(self):
        from models.graphs import LinkPredictionSession

        key = self._graph_key()
        if key not in self.link_sessions:
            self.link_sessions[key] = LinkPredictionSession(
                self.document().data, device=self.ctx.device(), seed=self.params()["seed"])
        return self.link_sessions[key]

    def training_sessions(self) -> list:
        return [s for group in (self.sessions, self.graph_sessions, self.link_sessions)
                for s in group.values()]
