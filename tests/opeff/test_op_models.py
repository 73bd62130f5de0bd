"""The operator models on calls as the profiler records them (the argument lists below are
the ones PyTorch 2.11 wrote into samples/kineto/kineto_step.pt.trace.json.xz, or follow the
operators' schemas)."""

from __future__ import annotations

from kernelscope.timeline.analysis.op_models import OpCall, has_model, work_of
from kernelscope.timeline.analysis.op_models.attention import causal_pairs

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
    # a tensor list records no element type: no bytes can be counted
    assert work_of(OpCall("aten::_foreach_mul_", ([[4096, 1024], [4096]], []),
                          ("TensorList", "Scalar"))) is None
    assert not has_model("aten::embedding_dense_backward")
