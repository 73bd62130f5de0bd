"""The operator models on calls as the profiler records them (the argument lists below are
the ones PyTorch 2.11 wrote into samples/kineto/kineto_step.pt.trace.json.xz, or follow the
operators' schemas)."""

from __future__ import annotations

from kernelscope.timeline.analysis.op_models import OpCall, has_model, no_model_reason, work_of
from kernelscope.timeline.analysis.op_models.attention import (
    NO_SEQUENCE_LENGTHS,
    SLIDING_WINDOW,
    causal_pairs,
)

BF16 = "c10::BFloat16"


def test_mm_is_two_mnk_and_moves_its_operands_once() -> None:
    work = work_of(OpCall("aten::mm", ([256, 10], [10, 1024]), (BF16, BF16), ("", "")))
    assert work is not None
    assert work.flops == 2 * 256 * 1024 * 10
    assert work.bytes == (256 * 10 + 10 * 1024 + 256 * 1024) * 2


def test_addmm_linear_bmm_matmul() -> None:
    addmm = work_of(OpCall("aten::addmm", ([4096], [256, 1024], [1024, 4096], [], []),
                           (BF16, BF16, BF16, "Scalar", "Scalar"), ("", "", "", "1", "1")))
    assert addmm is not None and addmm.flops == 2 * 256 * 4096 * 1024
    linear = work_of(OpCall("aten::linear", ([8, 32, 1024], [4096, 1024], [4096]),
                            ("float",) * 3))
    assert linear is not None and linear.flops == 2 * (8 * 32) * 4096 * 1024
    bmm = work_of(OpCall("aten::bmm", ([12, 64, 32], [12, 32, 128]), (BF16, BF16)))
    assert bmm is not None and bmm.flops == 2 * 12 * 64 * 128 * 32
    # matmul broadcasts: [4, 1, 64, 32] @ [3, 32, 16] is a batch of 12
    matmul = work_of(OpCall("aten::matmul", ([4, 1, 64, 32], [3, 32, 16]), (BF16, BF16)))
    assert matmul is not None and matmul.flops == 2 * 12 * 64 * 16 * 32
    assert work_of(OpCall("aten::mm", ([256, 10], [11, 1024]), (BF16, BF16))) is None


def test_attention_forward_backward_and_causal_pairs() -> None:
    q = [2, 8, 1024, 64]
    types = (BF16, BF16, BF16, "", "Scalar", "Scalar", "", "")
    plain = work_of(OpCall("aten::scaled_dot_product_attention", (q, q, q, [], [], [], [], []),
                           types, ("", "", "", "", "0.", "False", "", "")))
    assert plain is not None and plain.flops == 4 * 2 * 8 * 1024 * 1024 * 64
    causal = work_of(OpCall("aten::scaled_dot_product_attention", (q, q, q, [], [], [], [], []),
                            types, ("", "", "", "", "0.", "True", "", "")))
    assert causal is not None and causal.flops == 4 * 2 * 8 * (1024 * 1025 // 2) * 64
    assert causal_pairs(4, 6) == 1 + 2 + 3 + 4 and causal_pairs(6, 4) == 10 + 2 * 4
    # the flash backward: grad_out first, [B, H, L, D]; is_causal is the 12th argument
    dims = (q, q, q, q, q, [2, 8, 1024], [], [], [], [], [], [], [], [], [])
    concrete = ("",) * 11 + ("False",) + ("",) * 3
    back = work_of(OpCall("aten::_scaled_dot_product_flash_attention_backward", dims,
                          (BF16,) * 6 + ("",) * 9, concrete))
    assert back is not None and back.flops == 10 * 2 * 8 * 1024 * 1024 * 64


def test_convolution_forward_and_backward() -> None:
    x, w = [8, 64, 56, 56], [128, 64, 3, 3]
    conv = work_of(OpCall("aten::convolution", (x, w, [128], [], [], [], [], [], []),
                          ("float",) * 3 + ("ScalarList",) * 3 + ("Scalar", "ScalarList",
                                                                  "Scalar"),
                          ("", "", "", "[2, 2]", "[1, 1]", "[1, 1]", "False", "[0, 0]", "1")))
    assert conv is not None and conv.flops == 2 * 8 * 128 * 28 * 28 * 64 * 9
    grad = [8, 128, 28, 28]
    back = work_of(OpCall("aten::convolution_backward",
                          (grad, x, w, [], [], [], [], [], [], [], []), ("float",) * 3,
                          ("", "", "", "[128]", "[2, 2]", "[1, 1]", "[1, 1]", "False",
                           "[0, 0]", "1", "[True, True, False]")))
    assert back is not None and back.flops == 2 * conv.flops
    # without the stride and padding recorded (an NVTX range) the forward has no model
    assert work_of(OpCall("aten::convolution", (x, w), dtype="fp32")) is None


def test_bytes_only_models() -> None:
    add = work_of(OpCall("aten::add_", ([10, 1024], [10, 1024], []), ("float", "float", "Scalar")))
    assert add is not None and add.flops is None and add.bytes == 3 * 10 * 1024 * 4
    norm = work_of(OpCall("aten::native_layer_norm", ([256, 1024], [], [1024], [1024], []),
                          (BF16, "ScalarList", BF16, BF16, "Scalar")))
    assert norm is not None and norm.bytes == 2 * 256 * 1024 * 2 + 2 * 1024 * 2
    softmax = work_of(OpCall("aten::_log_softmax", ([256, 10], [], []), (BF16, "Scalar",
                                                                         "Scalar")))
    assert softmax is not None and softmax.bytes == 2 * 256 * 10 * 2
    # a tensor list records no element type: without one from the kernels' names, no bytes
    assert work_of(OpCall("aten::_foreach_mul_", ([[4096, 1024], [4096]], []),
                          ("TensorList", "Scalar"))) is None
    mul = work_of(OpCall("aten::_foreach_mul_", ([[4096, 1024], [4096]], []),
                         ("TensorList", "Scalar"), dtype="fp32"))
    assert mul is not None and mul.bytes == 2 * (4096 * 1024 + 4096) * 4  # read, written
    # the optimizer's step counters: a list of 0-d tensors, and a 0-d float tensor
    steps = work_of(OpCall("aten::_foreach_add_", ([[], [], []], [], []),
                           ("TensorList", "float", "Scalar"), ("", "", "1."), dtype="fp32"))
    assert steps is not None and steps.bytes == (3 + 1 + 3) * 4
    norm = work_of(OpCall("aten::_foreach_norm", ([[4096, 1024], [10]], []),
                          ("TensorList", "Scalar"), dtype="bf16"))
    assert norm is not None and norm.bytes == (4096 * 1024 + 10) * 2
    copy = work_of(OpCall("aten::_foreach_copy_", ([[8, 8], [4]], [[8, 8], [4]], []),
                          ("TensorList", "TensorList", "Scalar"), dtype="bf16"))
    assert copy is not None and copy.bytes == 2 * (64 + 4) * 2  # reads the source only
    assert not has_model("aten::embedding_dense_backward")


def test_flash_attn_operators_and_no_guess_for_variable_lengths() -> None:
    """flash-attn's operators (its schemas: q, k, v [B, L, H, D], ..., causal at 5; the
    backward's q at 1, causal at 11); variable-length attention packs the sequences into one
    dimension and records the cumulative lengths by size only: no model, and it says why."""
    q = [2, 1024, 8, 64]
    forward = OpCall("flash_attn::_flash_attn_forward", (q, q, q, [], [], [], [], [], [], [], []),
                     (BF16, BF16, BF16, "Scalar", "Scalar", "Scalar", "Scalar", "Scalar",
                      "Scalar", "", "Scalar"),
                     ("", "", "", "0.", "0.125", "True", "-1", "-1", "0.", "", "False"))
    work = work_of(forward)
    assert work is not None and work.flops == 2 * 2 * 8 * causal_pairs(1024, 1024) * 128
    assert no_model_reason(forward) is None
    windowed = OpCall(forward.name, forward.dims, forward.types,
                      ("", "", "", "0.", "0.125", "True", "256", "0", "0.", "", "False"))
    assert work_of(windowed) is None and no_model_reason(windowed) == SLIDING_WINDOW
    packed = [3000, 8, 64]
    varlen = OpCall("aten::_flash_attention_forward",
                    (packed, packed, packed, [5], [5], [], [], [], [], [], []),
                    (BF16, BF16, BF16, "int", "int", "Scalar", "Scalar", "Scalar", "Scalar",
                     "Scalar", ""),
                    ("", "", "", "", "", "1024", "1024", "0.", "True", "False", ""))
    assert work_of(varlen) is None and no_model_reason(varlen) == NO_SEQUENCE_LENGTHS
    # memory-efficient varlen keeps a batch of one: [1, total, H, D] would read as one
    # sequence of 3000 (4x the pairs of four sequences of 750), so no model
    efficient = OpCall("aten::_efficient_attention_forward",
                       ([1, *packed], [1, *packed], [1, *packed], [], [5], [5], [], [], [], [],
                        [], [], [], []),
                       (BF16, BF16, BF16, "", "int", "int", "Scalar", "Scalar", "Scalar",
                        "Scalar", "Scalar", "Scalar", "", ""),
                       ("", "", "", "", "", "", "1024", "1024", "0.", "1", "False", "", "", ""))
    assert work_of(efficient) is None and no_model_reason(efficient) == NO_SEQUENCE_LENGTHS
    library = OpCall("flash_attn::_flash_attn_varlen_forward", (packed, packed, packed, [5], [5]),
                     (BF16, BF16, BF16, "int", "int"))
    assert work_of(library) is None and no_model_reason(library) == NO_SEQUENCE_LENGTHS
    dense = OpCall("aten::_flash_attention_forward", (q, q, q, [], [], [], [], [], [], [], []),
                   (BF16, BF16, BF16, "", "", "Scalar", "Scalar", "Scalar", "Scalar", "Scalar",
                    ""), ("", "", "", "", "", "1024", "1024", "0.", "False", "False", ""))
    assert work_of(dense) is not None and no_model_reason(dense) is None
