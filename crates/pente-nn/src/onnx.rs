//! The network as an ONNX model, for ONNX Runtime and other tools: the same
//! function as [`PenteNet::forward`] in inference mode, with every batch
//! norm folded into the convolution before it.
//!
//! One input, `features` `[batch, planes, height, width]` (any batch and
//! board size), and two outputs: `policy` `[batch, height * width]` logits
//! (unmasked, row-major from `A1`) and `value` `[batch, 3]` win/draw/loss
//! logits for the side to move. Opset 17, IR version 8.

mod proto;

use burn::nn::conv::Conv2d;
use burn::nn::{BatchNorm, Linear};
use burn::prelude::*;
use prost::Message;

use crate::info::ModelInfo;
use crate::model::{ConvBn, PenteNet, PoolBlock, ResidualBlock};
use proto::{
    AttributeProto, AttributeType, Dimension, GraphProto, ModelProto, NodeProto, OperatorSetIdProto,
    StringStringEntryProto, TensorProto, TensorShapeProto, TensorTypeProto, TypeProto, ValueInfoProto,
};

/// Name of the model's input.
pub const INPUT: &str = "features";
/// Name of the policy output.
pub const POLICY: &str = "policy";
/// Name of the value output.
pub const VALUE: &str = "value";

const OPSET: i64 = 17;
const IR_VERSION: i64 = 8;

/// The metadata key of the network's id: a file made from the graph (e.g.
/// its int8 copy) keeps it, so that a runtime can tell which network it is.
pub const MODEL_ID_KEY: &str = "model_id";

/// Serializes `model` (with `info` as metadata) as an ONNX `ModelProto`.
#[must_use]
pub fn to_onnx(model: &PenteNet, info: &ModelInfo) -> Vec<u8> {
    let mut graph = GraphWriter::default();
    let scale = graph.pool_scale(INPUT);
    let mut t = graph.conv_bn(INPUT, &model.stem, true);
    for (i, block) in model.blocks.iter().enumerate() {
        if i == model.pool_after {
            t = graph.pool_block(&t, &model.pool_block, &scale);
        }
        t = graph.residual_block(&t, block);
    }
    if model.pool_after >= model.blocks.len() {
        t = graph.pool_block(&t, &model.pool_block, &scale);
    }

    let p = graph.conv_bn(&t, &model.policy_hidden, true);
    let p = graph.conv(&p, &model.policy_out, None);
    graph.node_named("Flatten", &[&p], vec![int("axis", 1)], POLICY);

    let v = graph.conv_bn(&t, &model.value_hidden, true);
    let v = graph.global_pool(&v, &scale);
    let v = graph.node("Flatten", &[&v], vec![int("axis", 1)]);
    let v = graph.linear(&v, &model.value_fc);
    let v = graph.node("Relu", &[&v], vec![]);
    let v = graph.linear(&v, &model.value_out);
    graph.node_named("Identity", &[&v], vec![], VALUE);

    let features = model.features();
    let free = |name: &str| Dimension { dim_value: None, dim_param: Some(name.into()) };
    let fixed = |n: usize| Dimension { dim_value: Some(n as i64), dim_param: None };
    let model = ModelProto {
        ir_version: IR_VERSION,
        producer_name: "pente".into(),
        producer_version: env!("CARGO_PKG_VERSION").into(),
        domain: String::new(),
        model_version: 1,
        doc_string: "Pente policy/value network: features [batch, planes, height, width] -> policy logits \
                     [batch, height*width] (row-major from A1, unmasked), value logits [batch, 3] (win, draw, loss \
                     for the side to move)"
            .into(),
        graph: Some(GraphProto {
            node: graph.nodes,
            name: info.id.clone(),
            initializer: graph.initializers,
            doc_string: String::new(),
            input: vec![value_info(
                INPUT,
                vec![free("batch"), fixed(features.planes()), free("height"), free("width")],
            )],
            output: vec![
                value_info(POLICY, vec![free("batch"), free("points")]),
                value_info(VALUE, vec![free("batch"), fixed(3)]),
            ],
        }),
        opset_import: vec![OperatorSetIdProto { domain: String::new(), version: OPSET }],
        metadata_props: [
            (MODEL_ID_KEY, info.id.clone()),
            ("features_version", features.version().to_string()),
            ("config", burn::config::config_to_json(&info.net)),
        ]
        .into_iter()
        .map(|(key, value)| StringStringEntryProto { key: key.into(), value })
        .collect(),
    };
    model.encode_to_vec()
}

fn value_info(name: &str, dims: Vec<Dimension>) -> ValueInfoProto {
    ValueInfoProto {
        name: name.into(),
        r#type: Some(TypeProto {
            tensor_type: Some(TensorTypeProto { elem_type: proto::FLOAT, shape: Some(TensorShapeProto { dim: dims }) }),
        }),
        doc_string: String::new(),
    }
}

fn int(name: &str, value: i64) -> AttributeProto {
    AttributeProto { name: name.into(), i: value, r#type: AttributeType::Int as i32, ..AttributeProto::default() }
}

fn ints(name: &str, values: &[i64]) -> AttributeProto {
    AttributeProto {
        name: name.into(),
        ints: values.to_vec(),
        r#type: AttributeType::Ints as i32,
        ..AttributeProto::default()
    }
}

fn values<const D: usize>(tensor: Tensor<D>) -> Vec<f32> {
    tensor.into_data().convert::<f32>().try_into_vec::<f32>().expect("f32 weights")
}

/// Batch norm in inference mode as `y = x * scale + shift` per channel.
fn affine(norm: &BatchNorm) -> (Vec<f64>, Vec<f64>) {
    let gamma = values(norm.gamma.val());
    let beta = values(norm.beta.val());
    let mean = values(norm.running_mean.value());
    let var = values(norm.running_var.value());
    let scale: Vec<f64> =
        gamma.iter().zip(&var).map(|(&g, &v)| f64::from(g) / (f64::from(v) + norm.epsilon).sqrt()).collect();
    let shift = beta.iter().zip(&mean).zip(&scale).map(|((&b, &m), &s)| f64::from(b) - f64::from(m) * s).collect();
    (scale, shift)
}

/// Nodes and weights of the graph being written; values get unique names.
#[derive(Default)]
struct GraphWriter {
    nodes: Vec<NodeProto>,
    initializers: Vec<TensorProto>,
    count: usize,
}

impl GraphWriter {
    fn fresh(&mut self, op: &str) -> String {
        self.count += 1;
        format!("{}_{}", op.to_lowercase(), self.count)
    }

    fn node(&mut self, op: &str, inputs: &[&str], attribute: Vec<AttributeProto>) -> String {
        let output = self.fresh(op);
        self.node_named(op, inputs, attribute, &output);
        output
    }

    fn node_named(&mut self, op: &str, inputs: &[&str], attribute: Vec<AttributeProto>, output: &str) {
        self.nodes.push(NodeProto {
            input: inputs.iter().map(|s| (*s).to_string()).collect(),
            output: vec![output.to_string()],
            name: format!("{op}_{}", self.nodes.len()),
            op_type: op.into(),
            attribute,
        });
    }

    /// A weight of the graph: `raw_data` holds `dims` values of `data_type`.
    fn initializer(&mut self, dims: &[usize], data_type: i32, raw_data: Vec<u8>) -> String {
        let name = self.fresh("w");
        self.initializers.push(TensorProto {
            dims: dims.iter().map(|&d| d as i64).collect(),
            data_type,
            name: name.clone(),
            raw_data,
        });
        name
    }

    fn constant(&mut self, dims: &[usize], data: &[f32]) -> String {
        assert_eq!(dims.iter().product::<usize>(), data.len(), "tensor shape");
        self.initializer(dims, proto::FLOAT, data.iter().flat_map(|v| v.to_le_bytes()).collect())
    }

    fn constant_i64(&mut self, data: &[i64]) -> String {
        self.initializer(&[data.len()], proto::INT64, data.iter().flat_map(|v| v.to_le_bytes()).collect())
    }

    /// `(sqrt(height * width) - 14) / 10` of `input`, a scalar: the
    /// board-size term of [`global_pool`](crate::model).
    fn pool_scale(&mut self, input: &str) -> String {
        let shape = self.node("Shape", &[input], vec![]);
        let hw = self.constant_i64(&[2, 3]);
        let dims = self.node("Gather", &[&shape, &hw], vec![int("axis", 0)]);
        let area = self.node("ReduceProd", &[&dims], vec![int("keepdims", 0)]);
        let area = self.node("Cast", &[&area], vec![int("to", i64::from(proto::FLOAT))]);
        let side = self.node("Sqrt", &[&area], vec![]);
        let fourteen = self.constant(&[], &[14.0]);
        let ten = self.constant(&[], &[10.0]);
        let centred = self.node("Sub", &[&side, &fourteen], vec![]);
        self.node("Div", &[&centred, &ten], vec![])
    }

    /// A convolution with `norm` folded into its weights, or its own bias.
    fn conv(&mut self, x: &str, conv: &Conv2d, norm: Option<&BatchNorm>) -> String {
        let [outputs, inputs, kh, kw] = conv.weight.val().dims();
        let mut weight = values(conv.weight.val());
        let per_output = inputs * kh * kw;
        let bias = match norm.map(affine) {
            Some((scale, shift)) => {
                for (o, chunk) in weight.chunks_mut(per_output).enumerate() {
                    for w in chunk {
                        *w = (f64::from(*w) * scale[o]) as f32;
                    }
                }
                let conv_bias = conv.bias.as_ref().map(|b| values(b.val()));
                shift
                    .iter()
                    .enumerate()
                    .map(|(o, &s)| (s + conv_bias.as_ref().map_or(0.0, |b| f64::from(b[o]) * scale[o])) as f32)
                    .collect()
            }
            None => conv.bias.as_ref().map_or_else(|| vec![0.0; outputs], |b| values(b.val())),
        };
        let w = self.constant(&[outputs, inputs, kh, kw], &weight);
        let b = self.constant(&[outputs], &bias);
        let (ph, pw) = ((kh / 2) as i64, (kw / 2) as i64);
        self.node(
            "Conv",
            &[x, &w, &b],
            vec![
                ints("kernel_shape", &[kh as i64, kw as i64]),
                ints("pads", &[ph, pw, ph, pw]),
                ints("strides", &[1, 1]),
            ],
        )
    }

    fn conv_bn(&mut self, x: &str, layer: &ConvBn, relu: bool) -> String {
        let y = self.conv(x, &layer.conv, Some(&layer.norm));
        if relu { self.node("Relu", &[&y], vec![]) } else { y }
    }

    fn residual_block(&mut self, x: &str, block: &ResidualBlock) -> String {
        let y = self.conv_bn(x, &block.first, true);
        let y = self.conv_bn(&y, &block.second, false);
        let sum = self.node("Add", &[x, &y], vec![]);
        self.node("Relu", &[&sum], vec![])
    }

    /// Mean, size-scaled mean and max over the board: `[B, C, H, W]` to `[B, 3C, 1, 1]`.
    fn global_pool(&mut self, x: &str, scale: &str) -> String {
        let mean = self.node("GlobalAveragePool", &[x], vec![]);
        let scaled = self.node("Mul", &[&mean, scale], vec![]);
        let max = self.node("GlobalMaxPool", &[x], vec![]);
        self.node("Concat", &[&mean, &scaled, &max], vec![int("axis", 1)])
    }

    fn pool_block(&mut self, x: &str, block: &PoolBlock, scale: &str) -> String {
        // The first convolution's two channel groups, each with its own batch
        // norm folded in, as two convolutions (no Split in the graph).
        let weight = block.first.weight.val();
        let part = |start: usize, len: usize| {
            let mut conv = block.first.clone();
            conv.weight = burn::module::Param::from_tensor(weight.clone().narrow(0, start, len));
            conv
        };
        let regular = self.conv(x, &part(0, block.regular), Some(&block.regular_norm));
        let pooled = self.conv(x, &part(block.regular, block.pooled), Some(&block.pooled_norm));
        let pooled = self.node("Relu", &[&pooled], vec![]);
        let pooled = self.global_pool(&pooled, scale);
        // The linear map from pooled values to a bias, as a 1x1 convolution on [B, 3p, 1, 1].
        let to_bias = values(block.pooled_to_bias.weight.val().transpose());
        let w = self.constant(&[block.regular, 3 * block.pooled, 1, 1], &to_bias);
        let bias = self.node("Conv", &[&pooled, &w], vec![ints("kernel_shape", &[1, 1])]);
        let regular = self.node("Add", &[&regular, &bias], vec![]);
        let regular = self.node("Relu", &[&regular], vec![]);
        let y = self.conv_bn(&regular, &block.second, false);
        let sum = self.node("Add", &[x, &y], vec![]);
        self.node("Relu", &[&sum], vec![])
    }

    /// `x W + b` with burn's `[in, out]` weight.
    fn linear(&mut self, x: &str, linear: &Linear) -> String {
        let [inputs, outputs] = linear.weight.val().dims();
        let w = self.constant(&[inputs, outputs], &values(linear.weight.val()));
        let b = linear.bias.as_ref().map_or_else(|| vec![0.0; outputs], |b| values(b.val()));
        let b = self.constant(&[outputs], &b);
        self.node("Gemm", &[x, &w, &b], vec![])
    }
}
